package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobVectorVector;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;

/**
 * Whether a training step diverged: a non-finite loss, a non-finite learnable weight, or a
 * non-finite input to a Pooling layer. The last matters even when the loss stayed finite: a window
 * of NaN or -Infinity leaves max pooling's argmax at -1, and its backward pass (already run) then
 * wrote before its bottom blob, over native memory the net does not own.
 */
public final class Divergence {
  private final LearnableParams params;
  private List<Integer> poolingLayers; // indices of the train net's Pooling layers, found lazily

  public Divergence(LearnableParams params) {
    this.params = params;
  }

  /** Whether the step that left {@code loss} in {@code net} diverged. */
  public boolean diverged(FloatNet net, double loss) {
    return !Double.isFinite(loss) || !params.finite(net.params()) || !poolingInputsFinite(net);
  }

  private boolean poolingInputsFinite(FloatNet net) {
    if (poolingLayers == null) {
      List<Integer> found = new ArrayList<>();
      FloatLayerSharedVector layers = net.layers();
      for (int i = 0; i < layers.size(); i++) {
        if ("Pooling".equals(layers.get(i).type().getString())) {
          found.add(i);
        }
      }
      poolingLayers = List.copyOf(found);
    }
    FloatBlobVectorVector bottoms = net.bottom_vecs();
    for (int i : poolingLayers) {
      if (!finite(bottoms.get(i).get(0))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every value of the blob is finite, from the sum of their magnitudes: a NaN or an
   * infinity makes it non-finite (so does a sum beyond Float.MAX_VALUE, values that have diverged
   * anyway). Blob::asum_data runs in BLAS where the data lives (cublas on a GPU, no copy to the
   * host) instead of a Java loop over every value.
   */
  public static boolean finite(FloatBlob b) {
    return Float.isFinite(b.asum_data());
  }
}
