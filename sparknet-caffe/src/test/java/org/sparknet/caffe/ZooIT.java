package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * The unchanged BVLC model-zoo files build. CIFAR-10 quick and CaffeNet use transforms that are not
 * supported yet (mean_file; crop_size, mirror): the unchanged files are rejected with the layer and
 * field named, and then built with their transform_param blocks removed.
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

  /** The net text with every transform_param removed (and batch sizes replaced if asked). */
  private static String withoutTransforms(String net, String batch) {
    TextFormat.Message m = TextFormat.parse(net, "zoo");
    for (TextFormat.Field layer : m.all("layer")) {
      layer.message().remove("transform_param");
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
    }
  }

  @Test
  void cifar10QuickIsRejectedForItsMeanFileThenBuildsWithoutIt() {
    String solver = Zoo.text("cifar10_quick_solver.prototxt");
    String net = Zoo.text("cifar10_quick_train_test.prototxt");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(NetDefinition.caffe(solver, net, List.of(3, 32, 32)), false));
    assertTrue(e.getMessage().contains("layer 'cifar' (Data)"), e.getMessage());
    assertTrue(e.getMessage().contains("transform_param.mean_file"), e.getMessage());
    NetDefinition d = NetDefinition.caffe(solver, withoutTransforms(net, null), List.of(3, 32, 32));
    try (CaffeNet n = CaffeNet.create(d, false)) {
      assertEquals(Shape.of(100, 3, 32, 32), n.inputShapes(Phase.TRAIN).get("data"));
      assertTrue(Float.isFinite(n.train(1, random(10))));
      assertTrue(n.test(1, random(10)).containsKey("accuracy"));
    }
  }

  @Test
  void caffeNetHas60965224Parameters() {
    String solver = Zoo.text("caffenet_solver.prototxt");
    String net = Zoo.text("caffenet_train_val.prototxt");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(NetDefinition.caffe(solver, net, List.of(3, 227, 227)), false));
    assertTrue(e.getMessage().contains("layer 'data' (Data)"), e.getMessage());
    assertTrue(e.getMessage().contains("transform_param.crop_size"), e.getMessage());
    // batch 2 instead of 256/50: the parameter count does not depend on it, the memory does
    NetDefinition d =
        NetDefinition.caffe(solver, withoutTransforms(net, "2"), List.of(3, 227, 227));
    try (CaffeNet n = CaffeNet.create(d, false)) {
      // conv1..5 + fc6..8, weights and biases: 60,954,656 + 10,568
      assertEquals(60_965_224L, n.getWeights().numFloats());
      assertEquals(
          List.of("conv1", "conv2", "conv3", "conv4", "conv5", "fc6", "fc7", "fc8"),
          n.getWeights().layerNames());
      assertEquals(Shape.of(2, 3, 227, 227), n.inputShapes(Phase.TEST).get("data"));
    }
  }
}
