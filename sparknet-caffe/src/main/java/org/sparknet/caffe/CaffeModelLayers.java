package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.BlobProto;
import org.bytedeco.caffe.LayerParameter;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.ndarray.Shape;

/**
 * The layers of a {@code .caffemodel} as the file holds them, for fine-tuning (copied by layer name
 * in {@link WeightCollection#copyByLayerName}, which holds the rule): every layer with blobs,
 * whether or not the net has it. No net is built, except for a file whose blobs use Caffe's legacy
 * 4-D fields (num, channels, height, width; files upgraded from Caffe's V1 format): only the net
 * knows which shape such a blob stands for, so it takes the net's shape when the two agree, as
 * Caffe's own copy accepts them.
 */
final class CaffeModelLayers {
  private CaffeModelLayers() {}

  /**
   * @throws IllegalArgumentException naming {@code source} when the bytes are not a binary
   *     NetParameter, use the V1 layer format, or hold a blob whose data does not fill its shape
   */
  static WeightCollection read(NetDefinition definition, byte[] bytes, String source) {
    CaffeRuntime.load();
    Path tmp = null;
    try (PointerScope scope = new PointerScope()) {
      // Caffe reads protos from files, not byte arrays.
      tmp = Files.createTempFile("sparknet-layers", ".caffemodel");
      Files.write(tmp, bytes);
      NetParameter np = new NetParameter();
      if (!caffe.ReadProtoFromBinaryFile(tmp.toString(), np)) {
        throw new IllegalArgumentException(
            "Weights file " + source + " is not a binary Caffe NetParameter (.caffemodel)");
      }
      if (np.layers_size() > 0) {
        throw new IllegalArgumentException(
            source + " uses Caffe's V1 layer format; upgrade it with upgrade_net_proto_binary");
      }
      return layers(np, definition, source);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot stage the weights of " + source, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException e) {
          // a left-over temporary file is harmless
        }
      }
    }
  }

  private static WeightCollection layers(NetParameter np, NetDefinition definition, String source) {
    WeightCollection out = new WeightCollection();
    WeightCollection netWeights = null;
    for (int i = 0; i < np.layer_size(); i++) {
      LayerParameter lp = np.layer(i);
      String name = lp.name().getString();
      if (lp.blobs_size() == 0 || out.contains(name)) {
        continue;
      }
      List<Tensor> tensors = new ArrayList<>(lp.blobs_size());
      for (int j = 0; j < lp.blobs_size(); j++) {
        BlobProto bp = lp.blobs(j);
        Shape shape;
        if (bp.has_shape()) {
          int[] dims = new int[bp.shape().dim_size()];
          for (int d = 0; d < dims.length; d++) {
            dims[d] = Math.toIntExact(bp.shape().dim(d));
          }
          shape = Shape.of(dims);
        } else {
          if (netWeights == null) {
            try (CaffeNet net = CaffeNet.create(definition)) {
              netWeights = net.getWeights();
            }
          }
          shape = legacyShape(bp, netWeights, name, j);
        }
        tensors.add(new Tensor(shape, data(bp, shape, name, j, source)));
      }
      out.put(name, tensors);
    }
    return out;
  }

  /** A legacy blob's shape: the net's blob shape when it pads to the same 4-D fields. */
  private static Shape legacyShape(BlobProto bp, WeightCollection net, String layer, int j) {
    Shape fields = Shape.of(bp.num(), bp.channels(), bp.height(), bp.width());
    if (net.contains(layer) && j < net.get(layer).size()) {
      Shape want = net.get(layer).get(j).shape();
      if (want.rank() <= 4) {
        int[] padded = {1, 1, 1, 1};
        for (int d = 0; d < want.rank(); d++) {
          padded[4 - want.rank() + d] = want.dim(d);
        }
        if (Shape.of(padded).equals(fields)) {
          return want;
        }
      }
    }
    return fields;
  }

  private static float[] data(BlobProto bp, Shape shape, String layer, int j, String source) {
    int n = bp.data_size();
    if (n != shape.size()) {
      throw new IllegalArgumentException(
          "Weights file "
              + source
              + ": layer '"
              + layer
              + "' blob "
              + j
              + " of shape "
              + shape
              + " holds "
              + n
              + " floats, needs "
              + shape.size()
              + (bp.double_data_size() > 0 ? " (double data is not supported)" : ""));
    }
    float[] data = new float[n];
    for (int k = 0; k < n; k++) {
      data[k] = bp.data(k);
    }
    return data;
  }
}
