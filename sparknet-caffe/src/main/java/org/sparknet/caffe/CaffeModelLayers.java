package org.sparknet.caffe;

import java.nio.file.Files;
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
import org.sparknet.caffe.internal.BlobShapes;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.LegacyWeights;
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
   *     NetParameter, mix the V1 and current layer formats, or hold a blob whose data does not fill
   *     its shape
   */
  static WeightCollection read(NetDefinition definition, byte[] bytes, String source) {
    CaffeRuntime.load();
    try (PointerScope scope = new PointerScope()) {
      NetParameter np = new NetParameter();
      // Caffe reads protos from files, not byte arrays.
      boolean parsed =
          CaffeRuntime.throughTempFile(
              ".caffemodel",
              "the weights of " + source,
              tmp -> {
                Files.write(tmp, bytes);
                return caffe.ReadProtoFromBinaryFile(tmp.toString(), np);
              });
      if (!parsed) {
        throw new IllegalArgumentException(
            "Weights file " + source + " is not a binary Caffe NetParameter (.caffemodel)");
      }
      return layers(LegacyWeights.upgrade(np, source), definition, source);
    }
  }

  private static WeightCollection layers(NetParameter np, NetDefinition definition, String source) {
    WeightCollection out = new WeightCollection();
    WeightCollection netWeights = null;
    for (int i = 0; i < np.layer_size(); i++) {
      LayerParameter lp = np.layer(i);
      String name = lp.has_name() ? lp.name().getString() : "";
      if (lp.blobs_size() == 0 || out.contains(name)) {
        continue;
      }
      List<Tensor> tensors = new ArrayList<>(lp.blobs_size());
      for (int j = 0; j < lp.blobs_size(); j++) {
        BlobProto bp = lp.blobs(j);
        Shape shape;
        if (bp.has_shape()) {
          shape = BlobShapes.of(bp);
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
    Shape fields = BlobShapes.of(bp);
    if (net.contains(layer) && j < net.get(layer).size()) {
      Shape want = net.get(layer).get(j).shape();
      if (want.rank() <= 4 && BlobShapes.legacy(want).equals(fields)) {
        return want;
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
              + " "
              + BlobShapes.sizeProblem(bp, shape));
    }
    float[] data = new float[n];
    for (int k = 0; k < n; k++) {
      data[k] = bp.data(k);
    }
    return data;
  }
}
