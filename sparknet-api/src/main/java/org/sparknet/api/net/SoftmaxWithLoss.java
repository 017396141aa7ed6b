package org.sparknet.api.net;

/**
 * Softmax over axis 1 of the prediction followed by the multinomial log loss against integer
 * labels: Caffe's {@code SoftmaxWithLoss}. Reads the previous layer's top and the net's label by
 * default; its output is a scalar and does not feed the next layer.
 */
public final class SoftmaxWithLoss extends LabelledHead<SoftmaxWithLoss> {
  private SoftmaxWithLoss(String name) {
    super(name, "SoftmaxWithLoss", null);
  }

  public static SoftmaxWithLoss named(String name) {
    return new SoftmaxWithLoss(name);
  }

  @Override
  boolean isLoss() {
    return true;
  }

  @Override
  void writeParams(PrototxtWriter w) {}
}
