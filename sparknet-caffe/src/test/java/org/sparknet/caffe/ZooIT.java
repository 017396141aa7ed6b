package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * The unchanged BVLC model-zoo files build. CIFAR-10 quick and CaffeNet read a mean image
 * (transform_param.mean_file, resolved against the working directory as Caffe does): without it
 * they are rejected with the layer, field and path named; with the path pointed at a mean image
 * (the only edit) they build, and CaffeNet's crop_size and mirror apply to the fed 256x256
 * examples.
 */
class ZooIT {
  private static BatchFeeder random(int classes) {
    Random rnd = new Random(1);
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      for (long i = 0; i < data.size(); i++) {
        data.setFlat(i, rnd.nextFloat() * 255f);
      }
      NDArray label = in.get("label");
      for (long i = 0; i < label.size(); i++) {
        label.setFlat(i, rnd.nextInt(classes));
      }
    };
  }

  @TempDir Path dir;

  /** The net text with mean_file pointed at {@code mean} (and batch sizes replaced if asked). */
  private static String withMeanFile(String net, Path mean, String batch) {
    TextFormat.Message m = TextFormat.parse(net, "zoo");
    for (TextFormat.Field layer : m.all("layer")) {
      TextFormat.Message tp = layer.message().child("transform_param");
      if (tp != null && tp.has("mean_file")) {
        tp.setString("mean_file", mean.toString());
      }
      TextFormat.Message dp = layer.message().child("data_param");
      if (dp != null && batch != null) {
        dp.set("batch_size", batch);
      }
    }
    return TextFormat.print(m);
  }

  @Test
  void lenetBuildsTrainsAndTests() {
    try (CaffeNet net = CaffeNet.create(Zoo.lenet(), false)) {
      assertTrue(Float.isFinite(net.train(1, random(10))));
      Map<String, Float> scores = net.test(1, random(10));
      assertEquals(
          List.of("accuracy", "loss"), List.copyOf(scores.keySet()).stream().sorted().toList());
      assertEquals(431_080, net.getWeights().numFloats());
      String summary = net.toString();
      assertTrue(
          summary.contains("CaffeNet 'LeNet' (SGD solver, cpu, iteration 1): 431,080"), summary);
      assertTrue(summary.contains("ip1               400,500"), summary);
    }
  }

  @Test
  void cifar10QuickNeedsItsMeanFileThenBuildsUnchanged() {
    String solver = Zoo.text("cifar10_quick_solver.prototxt");
    String net = Zoo.text("cifar10_quick_train_test.prototxt");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(NetDefinition.caffe(solver, net, List.of(3, 32, 32)), false));
    assertTrue(e.getMessage().contains("layer 'cifar' (Data)"), e.getMessage());
    assertTrue(e.getMessage().contains("transform_param.mean_file"), e.getMessage());
    assertTrue(e.getMessage().contains("examples/cifar10/mean.binaryproto"), e.getMessage());
    Path mean =
        MeanFiles.write(
            dir.resolve("mean.binaryproto"), 3, 32, 32, MeanFiles.ramp(3072, 100f, 0.01f));
    NetDefinition d =
        NetDefinition.caffe(solver, withMeanFile(net, mean, null), List.of(3, 32, 32));
    try (CaffeNet n = CaffeNet.create(d, false)) {
      assertEquals(Shape.of(100, 3, 32, 32), n.inputShapes(Phase.TRAIN).get("data"));
      assertTrue(Float.isFinite(n.train(1, random(10))));
      assertTrue(n.test(1, random(10)).containsKey("accuracy"));
    }
  }

  @Test
  void cifar10FullBuildsUnchangedButForItsMeanFile() {
    String solver = Zoo.text("cifar10_full_solver.prototxt");
    String net = Zoo.text("cifar10_full_train_test.prototxt");
    Path mean =
        MeanFiles.write(
            dir.resolve("full-mean.binaryproto"), 3, 32, 32, MeanFiles.ramp(3072, 120f, 0f));
    NetDefinition d =
        NetDefinition.caffe(solver, withMeanFile(net, mean, null), List.of(3, 32, 32));
    try (CaffeNet n = CaffeNet.create(d, false)) {
      // conv1 3x5x5x32+32, conv2 32x5x5x32+32, conv3 32x5x5x64+64, ip1 (64x4x4)x10+10
      assertEquals(89_578L, n.getWeights().numFloats());
      assertEquals(List.of("conv1", "conv2", "conv3", "ip1"), n.getWeights().layerNames());
      assertTrue(Float.isFinite(n.train(1, random(10))));
      assertTrue(n.test(1, random(10)).containsKey("accuracy"));
    }
  }

  @Test
  void caffeNetCropsMirrorsAndHas60965224Parameters() {
    String solver = Zoo.text("caffenet_solver.prototxt");
    String net = Zoo.text("caffenet_train_val.prototxt");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(NetDefinition.caffe(solver, net, List.of(3, 256, 256)), false));
    assertTrue(e.getMessage().contains("layer 'data' (Data)"), e.getMessage());
    assertTrue(e.getMessage().contains("data/ilsvrc12/imagenet_mean.binaryproto"), e.getMessage());
    Path mean =
        MeanFiles.write(
            dir.resolve("imagenet_mean.binaryproto"),
            3,
            256,
            256,
            MeanFiles.ramp(3 * 256 * 256, 110f, 0f));
    // batch 2 instead of 256/50: the parameter count does not depend on it, the memory does
    NetDefinition d =
        NetDefinition.caffe(solver, withMeanFile(net, mean, "2"), List.of(3, 256, 256));
    try (CaffeNet n = CaffeNet.create(d, false)) {
      // conv1..5 + fc6..8, weights and biases: 60,954,656 + 10,568
      assertEquals(60_965_224L, n.getWeights().numFloats());
      assertEquals(
          List.of("conv1", "conv2", "conv3", "conv4", "conv5", "fc6", "fc7", "fc8"),
          n.getWeights().layerNames());
      // the feeder writes uncropped 256x256 examples; the blobs are cropped to 227
      assertEquals(Shape.of(2, 3, 256, 256), n.inputShapes(Phase.TEST).get("data"));
      assertTrue(Float.isFinite(n.train(1, random(1000))));
    }
  }
}
