package org.sparknet.api.net;

/** An element-wise activation, computed in place by default: ReLU, Sigmoid or TanH. */
public final class ActivationLayer extends ElementwiseLayer<ActivationLayer> {
  private ActivationLayer(String name, String type) {
    super(name, type, "relu_param", "negative_slope");
  }

  public static ActivationLayer relu(String name) {
    return new ActivationLayer(name, "ReLU");
  }

  public static ActivationLayer sigmoid(String name) {
    return new ActivationLayer(name, "Sigmoid");
  }

  public static ActivationLayer tanh(String name) {
    return new ActivationLayer(name, "TanH");
  }

  /** Leaky ReLU: {@code x * slope} for negative x instead of 0. ReLU only. */
  public ActivationLayer optNegativeSlope(double slope) {
    if (!type().equals("ReLU")) {
      throw fail("field 'negative_slope' belongs to ReLU only");
    }
    if (!Double.isFinite(slope)) {
      throw fail("field 'negative_slope' must be finite but was " + slope);
    }
    return setParam(slope);
  }
}
