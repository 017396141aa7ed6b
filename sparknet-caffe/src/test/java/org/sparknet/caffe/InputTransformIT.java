package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Caffe's transform_param on data fed from the JVM: crop_size (centre crop in TEST), mirror and
 * mean_file, combined with scale, against values computed by hand; the CHECKs Caffe would abort on
 * are IllegalArgumentExceptions first.
 */
class InputTransformIT {
  @TempDir Path dir;

  private static String net(String transform) {
    return "name: \"t\"\n"
        + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
        + "  input_param { shape { dim: 2 dim: 1 dim: 2 dim: 2 } shape { dim: 2 } }\n"
        + "  transform_param { "
        + transform
        + " } }\n"
        + "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"data\" top: \"ip\"\n"
        + "  inner_product_param { num_output: 2 weight_filler { type: \"xavier\" } } }\n"
        + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip\" bottom: \"label\""
        + " top: \"loss\" }\n";
  }

  /** Writes each fed element's flat index, so any offset error shows. */
  private static final BatchFeeder FLAT_INDEX =
      (Map<String, NDArray> in) -> {
        NDArray data = in.get("data");
        for (long i = 0; i < data.size(); i++) {
          data.setFlat(i, i);
        }
        in.get("label").setFlat(0, 0);
        in.get("label").setFlat(1, 1);
      };

  private static float[] forwardData(CaffeNet net) {
    Map<String, NDArray> out = net.forward(FLAT_INDEX, List.of("data"));
    try (NDArray d = out.get("data")) {
      assertEquals(Shape.of(2, 1, 2, 2), d.shape());
      return d.toArray();
    }
  }

  @Test
  void centreCropMinusMeanFileTimesScale() {
    Path mean =
        MeanFiles.write(dir.resolve("mean.binaryproto"), 1, 4, 4, MeanFiles.ramp(16, 0f, 0.1f));
    String t = "crop_size: 2 scale: 0.5 mean_file: \"" + mean + "\"";
    try (CaffeNet net =
        CaffeNet.create(NetDefinition.caffe(TinyNets.SOLVER, net(t), List.of(1, 4, 4)), false)) {
      // what the feeder writes: uncropped examples
      assertEquals(Shape.of(2, 1, 4, 4), net.inputShapes(Phase.TEST).get("data"));
      float[] got = forwardData(net);
      float[] want = new float[8];
      for (int n = 0; n < 2; n++) {
        for (int h = 0; h < 2; h++) {
          for (int w = 0; w < 2; w++) {
            int src = (1 + h) * 4 + 1 + w; // centre crop of 4x4 to 2x2: offset (1, 1)
            want[n * 4 + h * 2 + w] = ((n * 16 + src) - 0.1f * src) * 0.5f;
          }
        }
      }
      assertArrayEquals(want, got, 1e-5f);
      assertTrue(Float.isFinite(net.train(2, FLAT_INDEX)));
    }
  }

  @Test
  void mirrorFlipsSomeExamplesAndKeepsOthers() {
    String t = "mirror: true mean_value: 1";
    NetDefinition d = NetDefinition.caffe(TinyNets.SOLVER, net(t), List.of(1, 2, 2));
    Set<String> seen = new HashSet<>();
    try (CaffeNet net = CaffeNet.create(d, false)) {
      for (int k = 0; k < 12; k++) {
        float[] got = forwardData(net);
        for (int n = 0; n < 2; n++) {
          float[] plain = {4 * n - 1, 4 * n, 4 * n + 1, 4 * n + 2}; // x - mean_value 1
          float[] flipped = {plain[1], plain[0], plain[3], plain[2]};
          float[] ex = java.util.Arrays.copyOfRange(got, 4 * n, 4 * n + 4);
          if (java.util.Arrays.equals(ex, plain)) {
            seen.add("plain");
          } else if (java.util.Arrays.equals(ex, flipped)) {
            seen.add("flipped");
          } else {
            throw new AssertionError(
                "neither the example nor its mirror: " + java.util.Arrays.toString(ex));
          }
        }
      }
    }
    assertEquals(Set.of("plain", "flipped"), seen);
  }

  @Test
  void badTransformsAreRejectedBeforeCaffe() throws Exception {
    Path mean = MeanFiles.write(dir.resolve("small.binaryproto"), 1, 3, 3, new float[9]);
    Path garbage =
        Files.writeString(dir.resolve("garbage.binaryproto"), "not a proto \u0007\u0001");
    record Case(String transform, List<Integer> sample, String message) {}
    List<Integer> cropped = List.of(1, 4, 4); // the Input blob is 2x1x2x2
    List<Integer> plain = List.of(1, 2, 2);
    List<Case> cases =
        List.of(
            new Case(
                "crop_size: 5", cropped, "crop_size 5 does not fit examples of shape [1, 4, 4]"),
            new Case("crop_size: 2", null, "the definition's sampleShape the uncropped"),
            new Case(
                "mean_file: \"" + dir.resolve("none.binaryproto") + "\"", plain, "does not exist"),
            new Case(
                "mean_file: \"" + mean + "\" mean_value: 3",
                plain,
                "both mean_file and mean_value"),
            new Case(
                "crop_size: 2 mean_file: \"" + mean + "\"",
                cropped,
                "holds 9 floats but an example has 16"),
            new Case(
                "crop_size: 2 mean_file: \"" + garbage + "\"",
                cropped,
                "is not a binary Caffe BlobProto"),
            new Case("force_color: true", plain, "force_color"));
    for (Case c : cases) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  CaffeNet.create(
                          NetDefinition.caffe(TinyNets.SOLVER, net(c.transform()), c.sample()),
                          false)
                      .close(),
              c.transform());
      assertTrue(e.getMessage().contains(c.message()), c.transform() + " -> " + e.getMessage());
    }
  }
}
