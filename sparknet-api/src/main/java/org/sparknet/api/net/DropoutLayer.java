package org.sparknet.api.net;

/**
 * Caffe's {@code Dropout}, in place by default: zeroes a fraction of the values while training and
 * scales the rest by 1 / (1 - ratio); the identity in the TEST phase.
 */
public final class DropoutLayer extends ElementwiseLayer<DropoutLayer> {
  private DropoutLayer(String name) {
    super(name, "Dropout", "dropout_param", "dropout_ratio");
  }

  public static DropoutLayer named(String name) {
    return new DropoutLayer(name);
  }

  /** The fraction dropped, in [0, 1); default 0.5 (Caffe's). */
  public DropoutLayer optRatio(double r) {
    if (!(r >= 0 && r < 1)) {
      throw fail("field 'dropout_ratio' must lie in [0, 1) but was " + r);
    }
    return setParam(r);
  }
}
