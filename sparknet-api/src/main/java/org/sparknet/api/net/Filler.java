package org.sparknet.api.net;

/**
 * How a learnable blob is initialised: Caffe's {@code FillerParameter}. Only fillers that Caffe
 * applies to any blob shape are offered (no {@code bilinear}, which CHECKs for square 4-D blobs).
 */
public final class Filler {

  private final String type;
  private final double value;
  private final double min;
  private final double max;
  private final double std;

  private Filler(String type, double value, double min, double max, double std) {
    this.type = type;
    this.value = value;
    this.min = min;
    this.max = max;
    this.std = std;
  }

  /** Every element {@code value}. */
  public static Filler constant(double value) {
    return new Filler("constant", value, 0, 1, 1);
  }

  /** Uniform in ±sqrt(3 / fan_in) (Caffe's default variance norm). */
  public static Filler xavier() {
    return new Filler("xavier", 0, 0, 1, 1);
  }

  /** Gaussian with variance 2 / fan_in (He et al.), for ReLU nets. */
  public static Filler msra() {
    return new Filler("msra", 0, 0, 1, 1);
  }

  /** Gaussian with mean 0 and standard deviation {@code std}. */
  public static Filler gaussian(double std) {
    if (!(std > 0) || Double.isInfinite(std)) {
      throw new IllegalArgumentException("Filler.gaussian: std must be positive, got " + std);
    }
    return new Filler("gaussian", 0, 0, 1, std);
  }

  /** Uniform in [min, max]. */
  public static Filler uniform(double min, double max) {
    if (!(min < max) || Double.isInfinite(min) || Double.isInfinite(max)) {
      throw new IllegalArgumentException(
          "Filler.uniform: needs finite min < max, got [" + min + ", " + max + "]");
    }
    return new Filler("uniform", 0, min, max, 1);
  }

  public String type() {
    return type;
  }

  void write(PrototxtWriter w, String field) {
    w.open(field).string("type", type);
    switch (type) {
      case "constant" -> {
        if (value != 0) {
          w.number("value", value);
        }
      }
      case "gaussian" -> w.number("std", std);
      case "uniform" -> w.number("min", min).number("max", max);
      default -> {}
    }
    w.close();
  }

  @Override
  public String toString() {
    return switch (type) {
      case "constant" -> "constant(" + value + ")";
      case "gaussian" -> "gaussian(" + std + ")";
      case "uniform" -> "uniform(" + min + ", " + max + ")";
      default -> type + "()";
    };
  }
}
