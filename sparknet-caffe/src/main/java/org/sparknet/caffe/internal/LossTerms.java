package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.IntPointer;

/**
 * A net's loss as Caffe's solver computes it: the sum over every top with a nonzero loss weight of
 * weight times the sum of the blob's values, from those values as a {@link StepProbe} reads them
 * back (the tops' values one after the other, in {@link #blobs()} order).
 */
public final class LossTerms {
  private record Term(String blob, float weight, int count) {}

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
          int blob = tops.get(j);
          out.add(
              new Term(net.blob_names().get(blob).getString(), w, net.blobs().get(blob).count()));
        }
      }
    }
    return new LossTerms(out);
  }

  /** The loss tops, in the order their values are read. */
  public List<String> blobs() {
    return terms.stream().map(Term::blob).toList();
  }

  /** The number of floats in the loss tops together. */
  public int valueCount() {
    return terms.stream().mapToInt(Term::count).sum();
  }

  /** The loss from the loss tops' values, laid out from {@code values[from]} on. */
  public double loss(float[] values, int from) {
    double loss = 0;
    int at = from;
    for (Term t : terms) {
      double s = 0;
      for (int i = 0; i < t.count(); i++) {
        s += values[at++];
      }
      loss += t.weight() * s;
    }
    return loss;
  }
}
