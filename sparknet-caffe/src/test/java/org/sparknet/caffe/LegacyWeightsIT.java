package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;

/**
 * A .caffemodel in Caffe's V1 (and V0) layer format, written byte by byte by {@link HandProto}: the
 * layers' legacy 4-D blobs (num, channels, height, width) load by layer name into the V1 LeNet
 * deploy net, taking the net's shapes, as Caffe's upgrade and copy do.
 *
 * <p>A reader that upgraded a V1 file without its blobs failed all four tests ("layer 'conv1' has 0
 * blobs, the net has 2"); one that took the V1 names in a V0 file failed the V0 case ("learnable
 * layers missing from the file: [conv1, conv2, ip1, ip2]"). Before the names were copied through
 * has_name, that mutation crashed the JVM in LayerParameter.set_name; the unnamed layer in these
 * files then gave a NullPointerException in the by-name copy, now fixed.
 */
class LegacyWeightsIT {
  private static final String SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  /** Layer -> its blobs' legacy dims, as V1 Caffe wrote LeNet (InnerProduct as 1x1xNxK). */
  private static final Map<String, int[][]> LENET = new LinkedHashMap<>();

  static {
    LENET.put("conv1", new int[][] {{20, 1, 5, 5}, {1, 1, 1, 20}});
    LENET.put("conv2", new int[][] {{50, 20, 5, 5}, {1, 1, 1, 50}});
    LENET.put("ip1", new int[][] {{1, 1, 500, 800}, {1, 1, 1, 500}});
    LENET.put("ip2", new int[][] {{1, 1, 10, 500}, {1, 1, 1, 10}});
  }

  private static final Map<String, Integer> V1_TYPE =
      Map.of("conv1", 4, "conv2", 4, "ip1", 14, "ip2", 14); // CONVOLUTION, INNER_PRODUCT

  @TempDir Path tmp;

  static NetDefinition deploy() {
    try (var in = LegacyWeightsIT.class.getResourceAsStream("/upgrade/lenet_v1_deploy.prototxt")) {
      return NetDefinition.caffe(
          SOLVER, new String(in.readAllBytes(), StandardCharsets.UTF_8), null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static float[] values(String layer, int blob, int n) {
    float[] v = new float[n];
    for (int k = 0; k < n; k++) {
      v[k] = (float) Math.sin(0.37 * k + 7 * layer.hashCode() + blob) * 0.1f;
    }
    return v;
  }

  /** The LeNet weights as a V1 (or V0) NetParameter; {@code ip2Width} != 500 makes a bad file. */
  static byte[] lenetModel(boolean v0, int ip2Width) {
    HandProto net = new HandProto().string(1, "LeNet");
    // a layer without blobs, as V1 Caffe wrote every layer
    net.message(
        2,
        v0
            ? new HandProto().message(1, new HandProto().string(1, "relu1").string(2, "relu"))
            : new HandProto().string(4, "relu1").varint(5, 18));
    // and one with neither name nor blobs, which Caffe's upgrade keeps as an unnamed layer
    net.message(
        2,
        v0
            ? new HandProto().message(1, new HandProto().string(2, "relu"))
            : new HandProto().varint(5, 18));
    for (Map.Entry<String, int[][]> e : LENET.entrySet()) {
      String name = e.getKey();
      HandProto layer = new HandProto();
      if (!v0) {
        layer.string(4, name).varint(5, V1_TYPE.get(name));
      } else {
        layer.string(1, name).string(2, name.startsWith("conv") ? "conv" : "innerproduct");
      }
      for (int j = 0; j < e.getValue().length; j++) {
        int[] d = e.getValue()[j].clone();
        if (name.equals("ip2") && j == 0) {
          d[3] = ip2Width;
        }
        HandProto blob =
            new HandProto().varint(1, d[0]).varint(2, d[1]).varint(3, d[2]).varint(4, d[3]);
        blob.packedFloats(5, values(name, j, d[0] * d[1] * d[2] * d[3]));
        layer.message(v0 ? 50 : 6, blob);
      }
      net.message(2, v0 ? new HandProto().message(1, layer) : layer);
    }
    return net.toBytes();
  }

  @ParameterizedTest(name = "V0 format: {0}")
  @ValueSource(booleans = {false, true})
  void legacyCaffeModelLoadsByLayerNameWithTheNetsShapes(boolean v0) throws Exception {
    Path file = Files.write(tmp.resolve("lenet_v1.caffemodel"), lenetModel(v0, 500));
    try (CaffeNet net = CaffeNet.create(deploy())) {
      CaffeModels.load(net, file);
      WeightCollection w = net.getWeights();
      assertEquals(List.copyOf(LENET.keySet()), w.layerNames());
      check(w);
    }
    WeightCollection read =
        new CaffeNetProvider()
            .readLayers(deploy(), Files.readAllBytes(file), "lenet_v1.caffemodel");
    check(read);
  }

  private static void check(WeightCollection w) {
    Map<String, List<Shape>> shapes =
        Map.of(
            "conv1", List.of(Shape.of(20, 1, 5, 5), Shape.of(20)),
            "conv2", List.of(Shape.of(50, 20, 5, 5), Shape.of(50)),
            "ip1", List.of(Shape.of(500, 800), Shape.of(500)),
            "ip2", List.of(Shape.of(10, 500), Shape.of(10)));
    for (String layer : LENET.keySet()) {
      for (int j = 0; j < 2; j++) {
        WeightCollection.Tensor t = w.get(layer).get(j);
        assertEquals(shapes.get(layer).get(j), t.shape(), layer + " blob " + j);
        assertArrayEquals(values(layer, j, (int) t.shape().size()), t.data(), layer + " blob " + j);
      }
    }
  }

  @Test
  void legacyBlobOfTheWrongShapeIsRejectedNamingTheLayer() throws Exception {
    Path file = Files.write(tmp.resolve("bad_v1.caffemodel"), lenetModel(false, 499));
    try (CaffeNet net = CaffeNet.create(deploy())) {
      float[] before = net.getWeights().get("ip2").get(0).data();
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.load(net, file));
      assertTrue(
          e.getMessage()
              .contains("layer 'ip2' blob 0 has shape [1, 1, 10, 499], the net has [10, 500]"),
          e.getMessage());
      assertTrue(e.getMessage().contains("bad_v1.caffemodel"), e.getMessage());
      assertArrayEquals(before, net.getWeights().get("ip2").get(0).data(), "nothing changed");
    }
  }

  @Test
  void fileWithBothLayerFormatsIsRejected() throws Exception {
    byte[] v1 = lenetModel(false, 500);
    byte[] current = new HandProto().message(100, new HandProto().string(1, "conv1")).toBytes();
    byte[] both = new byte[v1.length + current.length];
    System.arraycopy(v1, 0, both, 0, v1.length);
    System.arraycopy(current, 0, both, v1.length, current.length);
    Path file = Files.write(tmp.resolve("mixed.caffemodel"), both);
    try (CaffeNet net = CaffeNet.create(deploy())) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CaffeModels.load(net, file));
      assertTrue(
          e.getMessage().contains("mixed.caffemodel has layers in both the V1"), e.getMessage());
    }
  }
}
