package org.sparknet.api.train;

/**
 * The argument checks of {@link TrainerConfig.Builder}: each names the setting it checks and
 * returns the value it passed, so that a setter checks and stores in one statement.
 */
final class Checks {
  private Checks() {}

  static int positive(int v, String what) {
    positive((long) v, what);
    return v;
  }

  static long positive(long v, String what) {
    if (v <= 0) {
      throw new IllegalArgumentException(what + " must be > 0 but was " + v);
    }
    return v;
  }

  static int nonNegative(int v, String what) {
    if (v < 0) {
      throw new IllegalArgumentException(what + " must be >= 0 but was " + v);
    }
    return v;
  }

  static double positiveNumber(double v, String what) {
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new IllegalArgumentException(what + " must be a positive number but was " + v);
    }
    return v;
  }

  static double fraction(double v, String what) {
    if (!(v > 0 && v < 1)) {
      throw new IllegalArgumentException(
          what + " must be a fraction in (0, 1), for example 0.05, but was " + v);
    }
    return v;
  }

  static double finite(double v, String what) {
    if (!Double.isFinite(v)) {
      throw new IllegalArgumentException(what + " must be finite but was " + v);
    }
    return v;
  }

  static String name(String s, String what) {
    if (s == null || s.isBlank()) {
      throw new IllegalArgumentException("The " + what + " must not be empty");
    }
    return s;
  }
}
