package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.ndarray.Shape;

/**
 * Caffe's MNIST auto-encoder (shrunk to 784-50-784, its include/stage structure unchanged) with its
 * solver's two test_state stages: CaffeNet builds one test net per stage, each with its own data
 * layer, and tests each on what it is fed.
 *
 * <p>Mutations: building the test nets without merging their test_state (TEST alone) failed
 * creation with "layer 'flatdata' (Flatten) in phase TEST reads bottom 'data' that no earlier layer
 * of this phase produces", the error Caffe's example gave before test states; a CaffeNet whose
 * test(testNet, ...) always ran test net #0 failed with "expected: <[[5, 1, 28, 28], [10, 1, 28,
 * 28]]> but was: <[[10, 1, 28, 28], [10, 1, 28, 28]]>".
 */
class StagedTestNetsIT {
  private static String resource(String name) {
    try (InputStream in = StagedTestNetsIT.class.getResourceAsStream("/nets/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static NetDefinition autoEncoder(String solver) {
    return NetDefinition.caffe(
        solver, resource("mnist_autoencoder_small.prototxt"), List.of(1, 28, 28));
  }

  /** Every pixel {@code value} (0..255, scaled by the data layer's 1/255). */
  private static BatchFeeder constant(float value) {
    return inputs -> inputs.get("data").fill(value);
  }

  private static void assertClose(Map<String, Float> expected, Map<String, Float> actual) {
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach(
        (k, v) -> assertEquals(v, actual.get(k), 1e-4 * Math.abs(v), "output '" + k + "'"));
  }

  @Test
  void eachStagedTestNetTestsItsOwnData() {
    try (CaffeNet net =
        CaffeNet.create(autoEncoder(resource("mnist_autoencoder_solver_small.prototxt")), false)) {
      assertEquals(2, net.testNetCount());
      assertEquals(List.of("test-on-train"), net.testNetStages(0));
      assertEquals(List.of("test-on-test"), net.testNetStages(1));
      assertEquals("Test net #1 (test-on-test)", net.describeTestNet(1));
      assertEquals(Map.of("data", Shape.of(5, 1, 28, 28)), net.testInputShapes(1));
      assertEquals(net.inputShapes(Phase.TEST), net.testInputShapes(0));

      Map<String, Float> dark = net.test(0, 2, constant(0f));
      Map<String, Float> bright = net.test(1, 2, constant(255f));
      assertEquals(List.of("cross_entropy_loss", "l2_error"), List.copyOf(dark.keySet()));
      assertNotEquals(dark.get("l2_error"), bright.get("l2_error"));
      // the same data gives the same outputs on either net: they share the trained layers (up to
      // float sums over batches of 5 and 10)
      assertClose(bright, net.test(0, 2, constant(255f)));
      assertClose(dark, net.test(0, 2, constant(0f)));
      assertEquals(dark, net.test(2, constant(0f))); // the old call is test net #0

      net.train(3, constant(255f));
      Map<String, Float> trained = net.test(1, 2, constant(255f));
      assertNotEquals(bright.get("l2_error"), trained.get("l2_error"));
      assertClose(trained, net.test(0, 2, constant(255f)));

      List<Shape> fed = new ArrayList<>();
      net.test(1, 1, inputs -> fed.add(inputs.get("data").shape()));
      net.test(0, 1, inputs -> fed.add(inputs.get("data").shape()));
      assertEquals(List.of(Shape.of(5, 1, 28, 28), Shape.of(10, 1, 28, 28)), fed);

      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> net.test(2, 1, constant(0f)));
      assertTrue(e.getMessage().contains("has 2 test net(s) (0 to 1); there is no test net #2"));
      assertTrue(net.toString().contains("inputs (Test net #1 (test-on-test))"), net.toString());
    }
  }

  @Test
  void aSolverWithoutTestStatesHasOneTestNetAsBefore() {
    String solver = "base_lr: 0.01\nlr_policy: \"fixed\"\n";
    String net =
        resource("mnist_autoencoder_small.prototxt")
            .replace("include { phase: TEST stage: 'test-on-train' }", "include { phase: TEST }")
            .replace("include { phase: TEST stage: 'test-on-test' }", "include { stage: 'none' }");
    try (CaffeNet n =
        CaffeNet.create(NetDefinition.caffe(solver, net, List.of(1, 28, 28)), false)) {
      assertEquals(1, n.testNetCount());
      assertEquals(List.of(), n.testNetStages(0));
      assertEquals("Test net #0", n.describeTestNet(0));
    }
  }

  @Test
  void aBlobWithTwoProducersIsAnErrorNotAnAbort() {
    String solver = "base_lr: 0.01\nlr_policy: \"fixed\"\n";
    String net =
        resource("mnist_autoencoder_small.prototxt")
            .replace("include { phase: TEST stage: 'test-on-test' }", "include { phase: TRAIN }");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(NetDefinition.caffe(solver, net, List.of(1, 28, 28)), false));
    assertTrue(
        e.getMessage().contains("layer 'data' (Input) in phase TRAIN: top 'data' is produced by"),
        e.getMessage());
  }

  @Test
  void theCaffeExampleWithoutTestStatesNamesTheMissingData() {
    String solver = "base_lr: 0.01\nlr_policy: \"fixed\"\ntest_iter: 5\n";
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CaffeNet.create(autoEncoder(solver)));
    assertTrue(
        e.getMessage()
            .contains(
                "layer 'flatdata' (Flatten) in phase TEST reads bottom 'data' that no earlier"
                    + " layer of this phase produces"),
        e.getMessage());
  }

  /**
   * A net whose only data layer is TRAIN's and a solver without test nets, which caffe train
   * accepts: the implicit test net (for inference and --test) reads the train state's inputs.
   * Building it from phase TEST alone failed creation with "layer 'ip' (InnerProduct) in phase TEST
   * reads bottom 'data' that no earlier layer of this phase produces".
   */
  @Test
  void aTrainOnlyDataLayerFeedsTheImplicitTestNet() {
    String net =
        """
        name: "train-only"
        layer {
          name: "data" type: "Data" top: "data" top: "label" include { phase: TRAIN }
          data_param { source: "unused" batch_size: 4 }
        }
        layer {
          name: "ip" type: "InnerProduct" bottom: "data" top: "ip"
          inner_product_param { num_output: 3 weight_filler { type: "xavier" } }
        }
        layer { name: "loss" type: "SoftmaxWithLoss" bottom: "ip" bottom: "label" top: "loss" }
        """;
    NetDefinition def = NetDefinition.caffe("base_lr: 0.01 lr_policy: 'fixed'", net, List.of(2, 3));
    try (CaffeNet n = CaffeNet.create(def, false)) {
      assertEquals(1, n.testNetCount());
      assertEquals(
          Map.of("data", Shape.of(4, 2, 3), "label", Shape.of(4)), n.inputShapes(Phase.TEST));
      assertEquals(n.inputShapes(Phase.TRAIN), n.inputShapes(Phase.TEST));
      Map<String, Float> out = n.test(1, inputs -> inputs.get("data").fill(1f));
      assertTrue(out.containsKey("loss"), out.toString());
    }
  }
}
