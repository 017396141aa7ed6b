package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.LayerParameter;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;

/**
 * The layers of a .caffemodel as fine-tuning reads them ({@code NetProvider.readLayers}), from a
 * file Caffe writes today and from the same file in Caffe's legacy 4-D blob fields. Broken on
 * purpose: taking the legacy fields as the shape gave layer 'ip' [1, 1, 4, 48] instead of [4, 48];
 * keeping layers without blobs listed [in, conv, act, ip, loss] instead of [conv, ip].
 */
class CaffeModelLayersIT {
  private static final NetProvider CAFFE = NetProvider.forEngine("caffe");

  @Test
  void layersOfACaffemodelAsWrittenAndInLegacyFields(@TempDir Path dir) throws IOException {
    NetDefinition def = TinyNets.definition();
    WeightCollection trained;
    try (CaffeNet net = CaffeNet.create(def)) {
      net.train(3, TinyNets.quadrants(1));
      trained = net.getWeights();
    }
    byte[] bytes = CAFFE.encodeWeights(def, trained);

    WeightCollection layers = CAFFE.readLayers(def, bytes, "tiny.caffemodel");
    assertEquals(List.of("conv", "ip"), layers.layerNames(), "layers with blobs only");
    assertNull(layers.differenceFrom(trained, 0, 0));

    WeightCollection legacy = CAFFE.readLayers(def, legacyFields(bytes, dir), "old.caffemodel");
    assertEquals(Shape.of(4, 48), legacy.get("ip").get(0).shape());
    assertNull(legacy.differenceFrom(trained, 0, 0));

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CAFFE.readLayers(def, "not a proto".getBytes(), "junk.caffemodel"));
    assertTrue(
        e.getMessage()
            .equals(
                "Weights file junk.caffemodel is not a binary Caffe NetParameter (.caffemodel)"),
        e.getMessage());
  }

  /** The same file with every blob's shape in the legacy num/channels/height/width fields. */
  private static byte[] legacyFields(byte[] bytes, Path dir) throws IOException {
    Path file = Files.write(dir.resolve("new.caffemodel"), bytes);
    try (PointerScope scope = new PointerScope()) {
      NetParameter np = new NetParameter();
      assertTrue(caffe.ReadProtoFromBinaryFile(file.toString(), np));
      for (int i = 0; i < np.layer_size(); i++) {
        LayerParameter lp = np.mutable_layer(i);
        for (int j = 0; j < lp.blobs_size(); j++) {
          BlobProto bp = lp.mutable_blobs(j);
          int rank = bp.shape().dim_size();
          int[] dims = {1, 1, 1, 1};
          for (int d = 0; d < rank; d++) {
            dims[4 - rank + d] = (int) bp.shape().dim(d);
          }
          bp.clear_shape();
          bp.set_num(dims[0]);
          bp.set_channels(dims[1]);
          bp.set_height(dims[2]);
          bp.set_width(dims[3]);
        }
      }
      BytePointer out = np.SerializeAsString();
      byte[] legacy = new byte[(int) out.limit()];
      out.get(legacy);
      return legacy;
    }
  }
}
