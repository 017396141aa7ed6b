package org.sparknet.api.net;

import org.sparknet.api.Phase;

/**
 * The fraction of examples whose label is among the top k predictions: Caffe's {@code Accuracy}.
 * Only in the TEST phase by default ({@code optPhase(null)} for both). Reads the previous layer's
 * top and the net's label by default; its output is a scalar.
 */
public final class Accuracy extends LabelledHead<Accuracy> {
  private Integer topK;

  private Accuracy(String name) {
    super(name, "Accuracy", Phase.TEST);
  }

  public static Accuracy named(String name) {
    return new Accuracy(name);
  }

  /** Counts a hit when the label is among the k highest scores; default 1. */
  public Accuracy optTopK(int k) {
    this.topK = positive("top_k", k);
    return this;
  }

  @Override
  void checkClasses(int classes) {
    if (topK != null && topK > classes) {
      throw fail("field 'top_k' (" + topK + ") exceeds the number of classes (" + classes + ")");
    }
  }

  @Override
  void writeParams(PrototxtWriter w) {
    if (topK != null) {
      w.open("accuracy_param").bare("top_k", topK).close();
    }
  }
}
