package org.sparknet.caffe.internal;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.IntPointer;

/**
 * A net's loss as Caffe's solver computes it: the sum over every top with a nonzero loss weight of
 * weight times the sum of the blob's values, read back after a step.
 */
public final class LossTerms {
  private record Term(String blob, float weight) {}

  private final List<Term> terms;

  private LossTerms(List<Term> terms) {
    this.terms = List.copyOf(terms);
  }

  public static LossTerms of(FloatNet net) {
    List<Term> out = new ArrayList<>();
    FloatLayerSharedVector layers = net.layers();
    for (long i = 0; i < layers.size(); i++) {
      FloatLayer layer = layers.get(i);
      IntPointer tops = net.top_ids((int) i);
      int nt = layer.layer_param().top_size();
      for (int j = 0; j < nt; j++) {
        float w = layer.loss(j);
        if (w != 0) {
          out.add(new Term(net.blob_names().get(tops.get(j)).getString(), w));
        }
      }
    }
    return new LossTerms(out);
  }

  /** The loss of the last forward pass of {@code net}. */
  public double loss(FloatNet net) {
    double loss = 0;
    for (Term t : terms) {
      FloatBlob b = net.blob_by_name(t.blob());
      int n = b.count();
      FloatBuffer d = b.cpu_data().capacity(n).asBuffer();
      double s = 0;
      for (int i = 0; i < n; i++) {
        s += d.get(i);
      }
      loss += t.weight() * s;
    }
    return loss;
  }
}
