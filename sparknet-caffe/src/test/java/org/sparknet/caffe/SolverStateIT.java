package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.caffe.internal.CaffeRuntime;

/**
 * CaffeNet's solver state through the Net SPI and as Caffe's .solverstate: a second net given the
 * first's weights and solver state continues bit for bit, learning-rate policy included.
 */
class SolverStateIT {
  /** Momentum and a multistep policy whose steps fall inside and after the first 5 iterations. */
  static final String MULTISTEP =
      "base_lr: 0.05\nmomentum: 0.9\nlr_policy: \"multistep\"\ngamma: 0.3\n"
          + "stepvalue: 2\nstepvalue: 3\nstepvalue: 7\n";

  /** Loading the natives allocates a few bytes once; not a leak of the first test. */
  @BeforeAll
  static void loadNatives() {
    CaffeRuntime.load();
  }

  private static CaffeNet build(NetDefinition d) {
    return CaffeNet.create(d, false);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"SGD", "Adam"})
  void aNetGivenWeightsAndSolverStateContinuesExactly(String type) {
    String solver =
        type.equals("SGD")
            ? MULTISTEP
            : "type: \"Adam\"\nbase_lr: 0.01\nmomentum: 0.9\nmomentum2: 0.999\n"
                + "lr_policy: \"step\"\nstepsize: 3\ngamma: 0.5\n";
    try (CaffeNet a = build(TinyNets.definition(solver).withSeed(1));
        CaffeNet b = build(TinyNets.definition(solver).withSeed(2))) {
      assertTrue(a.hasSolverState());
      a.train(5, TinyNets.quadrants(1));
      SolverState st = a.getSolverState();
      assertEquals(5, st.iteration());
      if (type.equals("Adam")) {
        assertEquals(List.of("conv", "ip", "conv#1", "ip#1"), st.history().layerNames());
      }
      b.setWeights(a.getWeights());
      b.setSolverState(st);
      assertEquals(5, b.iteration());
      assertNull(b.getSolverState().history().differenceFrom(st.history(), 0, 0));
      float la = a.train(4, TinyNets.quadrants(7));
      float lb = b.train(4, TinyNets.quadrants(7));
      assertEquals(la, lb, 0f);
      assertNull(b.getWeights().differenceFrom(a.getWeights(), 0, 0));
      assertEquals(9, b.iteration());
    }
  }

  @Test
  void historyWithoutTheIterationIsNotEnough() {
    // The multistep rate after 5 iterations is 0.05 * 0.3^2; a net at iteration 0 uses 0.05.
    try (CaffeNet a = build(TinyNets.definition(MULTISTEP).withSeed(1));
        CaffeNet b = build(TinyNets.definition(MULTISTEP).withSeed(2))) {
      a.train(5, TinyNets.quadrants(1));
      b.setWeights(a.getWeights());
      b.setSolverHistory(a.getSolverHistory());
      a.train(2, TinyNets.quadrants(7));
      b.train(2, TinyNets.quadrants(7));
      assertFalse(b.getWeights().allClose(a.getWeights(), 1e-4, 0));
    }
  }

  @Test
  void aMismatchedStateIsRefusedAndChangesNothing() {
    try (CaffeNet a = build(TinyNets.definition(MULTISTEP));
        CaffeNet b =
            build(TinyNets.definition("type: \"Adam\"\nbase_lr: 0.01\nlr_policy: \"fixed\"\n"))) {
      a.train(1, TinyNets.quadrants(1));
      WeightCollection before = a.getSolverHistory();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> a.setSolverState(b.getSolverState()));
      assertTrue(e.getMessage().contains("solver history"), e.getMessage());
      assertEquals(1, a.iteration());
      assertNull(a.getSolverHistory().differenceFrom(before, 0, 0));
    }
  }

  @Test
  void solverStateFileRoundTripsAndIsValidated(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tiny.solverstate");
    Path weights = dir.resolve("tiny.caffemodel");
    try (CaffeNet a = build(TinyNets.definition(MULTISTEP).withSeed(1));
        CaffeNet b = build(TinyNets.definition(MULTISTEP).withSeed(2))) {
      a.train(4, TinyNets.quadrants(1));
      CaffeModels.saveSolverState(a, file, false);
      CaffeModels.save(a, weights, false);
      IllegalArgumentException again =
          assertThrows(
              IllegalArgumentException.class, () -> CaffeModels.saveSolverState(a, file, false));
      assertTrue(again.getMessage().contains("already exists"), again.getMessage());
      a.train(1, TinyNets.quadrants(2));
      CaffeModels.saveSolverState(a, file, true);
      CaffeModels.save(a, weights, true);
      // history: 4 blobs of 27 + 3 + 192 + 4 floats
      assertTrue(Files.size(file) > 4 * (27 + 3 + 192 + 4));

      CaffeModels.load(b, weights);
      CaffeModels.loadSolverState(b, file);
      assertEquals(5, b.iteration());
      a.train(3, TinyNets.quadrants(7));
      b.train(3, TinyNets.quadrants(7));
      assertNull(b.getWeights().differenceFrom(a.getWeights(), 0, 0));
    }
    // a state of another net (ip has 5 outputs instead of 4) is refused before Caffe sees it
    NetDefinition wider =
        NetDefinition.caffe(
            MULTISTEP,
            TinyNets.net("tiny", "ReLU").replace("num_output: 4", "num_output: 5"),
            null);
    try (CaffeNet c = build(wider)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.loadSolverState(c, file));
      assertTrue(e.getMessage().contains("does not match net"), e.getMessage());
      assertTrue(
          e.getMessage().contains("history blob 2 (ip) has shape [4, 48], the net has [5, 48]"),
          e.getMessage());
      assertEquals(0, c.iteration());
      Path junk = dir.resolve("junk.solverstate");
      Files.write(junk, new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1});
      IllegalArgumentException j =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.loadSolverState(c, junk));
      // protobuf reads these bytes as an empty message; the history check refuses it
      assertTrue(j.getMessage().contains("it has 0 history blobs"), j.getMessage());
      assertThrows(
          IllegalArgumentException.class,
          () -> CaffeModels.loadSolverState(c, dir.resolve("missing.solverstate")));
    }
  }
}
