package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * CaffeNet's behaviour on small nets. Nets here are built with {@code CaffeNet.create(def, false)}
 * (no dry run: these definitions are known good, and each child JVM costs seconds on CI);
 * ValidationIT and LeNetMnistIT go through the provider with the dry run on.
 */
class CaffeNetIT {

  private static CaffeNet build(NetDefinition d) {
    return CaffeNet.create(d, false);
  }

  private static Map<String, NDArray> outputs(CaffeNet net, long seed) {
    return net.forward(TinyNets.quadrants(seed), List.of("ip", "loss"));
  }

  private static void assertSameOutputs(CaffeNet a, CaffeNet b) {
    Map<String, NDArray> x = outputs(a, 99);
    Map<String, NDArray> y = outputs(b, 99);
    try {
      for (String k : x.keySet()) {
        NDAssert.assertAllClose(x.get(k), y.get(k), Tolerance.EXACT);
      }
    } finally {
      x.values().forEach(NDArray::close);
      y.values().forEach(NDArray::close);
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam"})
  void lossDecreasesWithEverySolverType(String type) {
    String solver =
        switch (type) {
          case "SGD", "Nesterov" -> "base_lr: 0.05\nmomentum: 0.9\n";
          case "AdaGrad" -> "base_lr: 0.05\n";
          case "RMSProp" -> "base_lr: 0.005\nrms_decay: 0.98\n";
          case "AdaDelta" -> "base_lr: 1.0\nmomentum: 0.95\ndelta: 1e-6\n";
          default -> "base_lr: 0.005\nmomentum: 0.9\nmomentum2: 0.999\n";
        };
    NetDefinition d =
        TinyNets.definition("type: \"" + type + "\"\nlr_policy: \"fixed\"\n" + solver).withSeed(3);
    try (CaffeNet net = build(d)) {
      var feeder = TinyNets.quadrants(5);
      float first = net.train(10, feeder);
      net.train(60, feeder);
      float last = net.train(10, feeder);
      assertEquals(80, net.iteration());
      assertTrue(last < 0.7f * first, type + ": loss went from " + first + " to " + last);
      assertFalse(net.getSolverHistory().numLayers() == 0, type + " keeps a history");
    }
  }

  @Test
  void iterationAndLearningRatePolicyContinueAcrossTrainCalls() {
    // lr_policy "step" with stepsize 3 and gamma 0: the learning rate is 0 from iteration 3 on,
    // so weights change in calls 1..3 and freeze afterwards however the steps are split.
    NetDefinition d =
        TinyNets.definition("base_lr: 0.1\nlr_policy: \"step\"\nstepsize: 3\ngamma: 0\n");
    try (CaffeNet net = build(d)) {
      var feeder = TinyNets.quadrants(1);
      net.train(2, feeder);
      assertEquals(2, net.iteration());
      WeightCollection w2 = net.getWeights();
      net.train(1, feeder);
      WeightCollection w3 = net.getWeights();
      assertFalse(w3.allClose(w2, 0, 0), "iteration 2 still learns");
      net.train(4, feeder);
      assertEquals(7, net.iteration());
      assertNull(net.getWeights().differenceFrom(w3, 0, 0), "frozen from iteration 3 on");
    }
  }

  @Test
  void weightsCopiedToASecondNetGiveIdenticalOutputs() {
    try (CaffeNet a = build(TinyNets.definition().withSeed(1));
        CaffeNet b = build(TinyNets.definition().withSeed(2))) {
      a.train(5, TinyNets.quadrants(1));
      WeightCollection w = a.getWeights();
      assertEquals(List.of("conv", "ip"), w.layerNames());
      assertEquals(Shape.of(3, 1, 3, 3), w.get("conv").get(0).shape());
      assertEquals(Shape.of(4, 48), w.get("ip").get(0).shape());
      assertFalse(b.getWeights().allClose(w, 0, 0), "different seeds start apart");
      b.setWeights(w);
      assertNull(b.getWeights().differenceFrom(w, 0, 0));
      assertSameOutputs(a, b);
    }
  }

  @Test
  void setWeightsRejectsAnotherStructureAndChangesNothing() {
    try (CaffeNet net = build(TinyNets.definition())) {
      WeightCollection before = net.getWeights();
      WeightCollection missing = new WeightCollection().put("conv", before.get("conv"));
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> net.setWeights(missing));
      assertTrue(e.getMessage().contains("missing layers [ip]"), e.getMessage());
      WeightCollection extra = before.copy().put("ip2", before.get("ip"));
      e = assertThrows(IllegalArgumentException.class, () -> net.setWeights(extra));
      assertTrue(e.getMessage().contains("unexpected layers [ip2]"), e.getMessage());
      WeightCollection misShaped =
          new WeightCollection()
              .put("conv", before.get("conv"))
              .put(
                  "ip",
                  List.of(
                      new WeightCollection.Tensor(Shape.of(48, 4), new float[192]),
                      before.get("ip").get(1)));
      e = assertThrows(IllegalArgumentException.class, () -> net.setWeights(misShaped));
      assertTrue(e.getMessage().contains("has shape [48, 4], expected [4, 48]"), e.getMessage());
      assertNull(net.getWeights().differenceFrom(before, 0, 0), "nothing was changed");
    }
  }

  @Test
  void solverHistoryRoundTripsSoTrainingContinuesIdentically() {
    try (CaffeNet a = build(TinyNets.definition().withSeed(1));
        CaffeNet b = build(TinyNets.definition().withSeed(2))) {
      a.train(5, TinyNets.quadrants(1));
      b.setWeights(a.getWeights());
      b.setSolverHistory(a.getSolverHistory());
      float la = a.train(3, TinyNets.quadrants(7));
      float lb = b.train(3, TinyNets.quadrants(7));
      assertEquals(la, lb, 0f);
      assertNull(b.getWeights().differenceFrom(a.getWeights(), 0, 0));
      // without the history the momentum is lost and the runs part
      try (CaffeNet c = build(TinyNets.definition().withSeed(2))) {
        c.setWeights(a.getWeights());
        c.train(3, TinyNets.quadrants(7));
        a.train(3, TinyNets.quadrants(7));
        assertFalse(c.getWeights().allClose(a.getWeights(), 0, 0));
      }
    }
  }

  @Test
  void caffeModelRoundTripIsBitExact(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("tiny.caffemodel");
    try (CaffeNet a = build(TinyNets.definition().withSeed(1));
        CaffeNet b = build(TinyNets.definition().withSeed(2))) {
      a.train(5, TinyNets.quadrants(1));
      CaffeModels.save(a, file, false);
      assertTrue(Files.size(file) > 4 * (27 + 3 + 192 + 4));
      IllegalArgumentException again =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.save(a, file, false));
      assertTrue(again.getMessage().contains("already exists"), again.getMessage());
      a.train(1, TinyNets.quadrants(2));
      CaffeModels.save(a, file, true);
      CaffeModels.load(b, file);
      assertNull(b.getWeights().differenceFrom(a.getWeights(), 0, 0));
      assertSameOutputs(a, b);
    }
  }

  @Test
  void caffeModelOfAnotherNetIsRejectedBeforeCaffeSeesIt(@TempDir Path dir) {
    Path file = dir.resolve("lenet.caffemodel");
    NetDefinition wide =
        NetDefinition.caffe(
            TinyNets.SOLVER,
            TinyNets.net("tiny", "ReLU").replace("num_output: 3", "num_output: 5"),
            null);
    try (CaffeNet other = build(wide);
        CaffeNet net = build(TinyNets.definition())) {
      CaffeModels.save(other, file, false);
      WeightCollection before = net.getWeights();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.load(net, file));
      assertTrue(
          e.getMessage().contains("layer 'conv' blob 0 has shape [5, 1, 3, 3]"), e.getMessage());
      assertNull(net.getWeights().differenceFrom(before, 0, 0));
      IllegalArgumentException none =
          assertThrows(
              IllegalArgumentException.class,
              () -> CaffeModels.load(net, dir.resolve("absent.caffemodel")));
      assertTrue(none.getMessage().contains("does not exist"), none.getMessage());
    }
  }

  @Test
  void viewsDoNotOutliveTheFeederCall() {
    List<NDArray> kept = new ArrayList<>();
    try (CaffeNet net = build(TinyNets.definition())) {
      net.train(
          1,
          in -> {
            TinyNets.quadrants(1).fill(in);
            kept.add(in.get("data"));
            assertEquals(Shape.of(8, 1, 6, 6), in.get("data").shape());
            assertFalse(in.get("data").isOwner());
          });
      IllegalStateException e =
          assertThrows(IllegalStateException.class, () -> kept.get(0).getFlat(0));
      assertTrue(e.getMessage().contains("input blob 'data'"), e.getMessage());
    }
  }

  @Test
  void forwardReturnsOwningCopiesAndRejectsUnknownBlobs() {
    try (CaffeNet net = build(TinyNets.definition())) {
      Map<String, NDArray> out = net.forward(TinyNets.quadrants(1), List.of("ip", "loss"));
      try {
        assertEquals(Shape.of(8, 4), out.get("ip").shape());
        assertTrue(out.get("ip").isOwner());
        assertEquals(1, out.get("loss").size());
      } finally {
        out.values().forEach(NDArray::close);
      }
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> net.forward(TinyNets.quadrants(1), List.of("ipp")));
      assertTrue(e.getMessage().contains("no blob 'ipp'"), e.getMessage());
      Map<String, Float> scores = net.test(2, TinyNets.quadrants(3));
      assertEquals(List.of("loss"), List.copyOf(scores.keySet()));
    }
  }

  @Test
  void dataLayerTransformIsAppliedInPlace() {
    String net =
        "name: \"t\"\n"
            + "layer { name: \"d\" type: \"Data\" top: \"data\" top: \"label\"\n"
            + "  transform_param { scale: 0.5 mean_value: 1 mean_value: 3 }\n"
            + "  data_param { source: \"nowhere\" batch_size: 2 backend: LMDB } }\n"
            + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\"\n"
            + "  inner_product_param { num_output: 2 } }\n"
            + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
            + " top: \"loss\" }\n";
    NetDefinition d = NetDefinition.caffe(TinyNets.SOLVER, net, List.of(2, 1, 2));
    try (CaffeNet n = build(d)) {
      assertEquals(Shape.of(2, 2, 1, 2), n.inputShapes(Phase.TRAIN).get("data"));
      assertEquals(Shape.of(2), n.inputShapes(Phase.TEST).get("label"));
      Map<String, NDArray> out =
          n.forward(
              in -> {
                NDArray x = in.get("data");
                for (int i = 0; i < 8; i++) {
                  x.setFlat(i, i);
                }
              },
              List.of("data"));
      try (NDArray data = out.get("data")) {
        // (x - mean[channel]) * 0.5 with channels of 2 values: 0,1 | 2,3 | 4,5 | 6,7
        assertArrayEquals(
            new float[] {-0.5f, 0f, -0.5f, 0f, 1.5f, 2f, 1.5f, 2f}, data.toArray(), 0f);
      }
    }
  }

  @Test
  void closeIsIdempotentAndUseAfterCloseFails() {
    CaffeNet net = build(TinyNets.definition());
    net.close();
    net.close();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> net.train(1, TinyNets.quadrants(1)));
    assertTrue(e.getMessage().contains("'tiny' has been closed"), e.getMessage());
    assertThrows(IllegalStateException.class, net::getWeights);
  }
}
