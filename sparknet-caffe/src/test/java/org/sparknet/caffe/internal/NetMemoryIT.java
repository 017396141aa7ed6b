package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;

/**
 * The GPU memory a net will ask for, predicted on the CPU from the blob shapes of Caffe's own build
 * of the net (no GPU here; on a GPU, CaffeNet compares it with the device's free memory before the
 * first pass), and the error that names the net, the batch size and the bytes.
 *
 * <p>Broken build this catches: counting the training activations once (data without gradients)
 * gave 18,101,692 bytes instead of 23,143,616.
 */
class NetMemoryIT {
  @Test
  void lenetsBytesFollowFromItsBlobShapes() {
    NetDefinition lenet =
        NetDefinition.caffe(
            zoo("lenet_solver.prototxt"), zoo("lenet_train_test.prototxt"), List.of(1, 28, 28));
    NetMemory m = predict(lenet);
    // Training net, batch 64: data 50,176, label 64, conv1 737,280, pool1 184,320, conv2 204,800,
    // pool2 51,200, ip1 32,000 (relu1 in place), ip2 640, loss 1, each with its gradient.
    long train = 2L * (50_176 + 64 + 737_280 + 184_320 + 204_800 + 51_200 + 32_000 + 640 + 1);
    // Weights 431,080 floats, with their gradients and SGD's momentum.
    long weights = 3L * 431_080;
    // Test net, batch 100: the same blobs, accuracy, and the splits of ip2 and label that feed
    // both accuracy and loss.
    long test =
        78_400 + 100 + 1_152_000 + 288_000 + 320_000 + 80_000 + 50_000 + 1_000 + 1 + 1 + 2 * 1_000
            + 2 * 100;
    assertEquals(new NetMemory("LeNet", 64, 4 * (train + weights + test), "gpu:0"), m);

    m.check(m.bytes()); // fits exactly
    m.check(-1); // free memory unknown: Caffe decides
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> m.check(m.bytes() - 1));
    assertTrue(
        e.getMessage()
            .startsWith(
                "GPU out of memory: net 'LeNet' at batch size 64 asks for 23,143,616 bytes (0.02"
                    + " GiB) on gpu:0"),
        e.getMessage());
    assertTrue(e.getMessage().contains("--batch-size"), e.getMessage());
  }

  /** Builds the definition's solver and test net on the CPU as CaffeNet does, and predicts. */
  private static NetMemory predict(NetDefinition def) {
    NetPlan plan = NetPlan.of(def);
    CaffeRuntime.useDevice(-1);
    try (PointerScope scope = new PointerScope()) {
      SolverParameter sp = new SolverParameter();
      CaffeRuntime.readText(plan.solverText(), sp, "solver");
      NetParameter tp = new NetParameter();
      CaffeRuntime.readText(plan.testNetText(), tp, "test net");
      try (FloatSGDSolver solver = new FloatSGDSolver(sp);
          FloatNet test = new FloatNet(tp)) {
        test.ShareTrainedLayersWith(solver.net());
        return NetMemory.of(plan, solver.net(), List.of(test), 0);
      }
    }
  }

  private static String zoo(String name) {
    try (InputStream in = NetMemoryIT.class.getResourceAsStream("/zoo/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
