package org.sparknet.api.train;

/** The argument checks of {@link TrainerConfig.Builder}: each names the setting it checks. */
final class Checks {
  private Checks() {}

  static void positive(long v, String what) {
    if (v <= 0) {
      throw new IllegalArgumentException(what + " must be > 0 but was " + v);
    }
  }

  static void nonNegative(long v, String what) {
    if (v < 0) {
      throw new IllegalArgumentException(what + " must be >= 0 but was " + v);
    }
  }

  static void positiveNumber(double v, String what) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(what + " must be a positive number but was " + v);
    }
  }

  static String name(String s, String what) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException("The " + what + " must not be empty");
    }
    return s;
  }
}
