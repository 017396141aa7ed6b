package org.sparknet.testing;

/**
 * A numeric tolerance: values a (actual) and e (expected) agree when {@code |a - e| <= atol + rtol
 * * |e|}, or both are NaN, or both are the same infinity. Tests state the tolerance they use by
 * name rather than inventing literals.
 */
public record Tolerance(double rtol, double atol) {
  /** Bit-for-bit equality. */
  public static final Tolerance EXACT = new Tolerance(0, 0);

  /** Float32 arithmetic in a different order (sums of a few thousand terms). */
  public static final Tolerance FLOAT = new Tolerance(1e-5, 1e-6);

  /** Float32 results of long computations (training steps, BLAS versus plain loops). */
  public static final Tolerance LOOSE = new Tolerance(1e-3, 1e-5);

  public boolean accepts(double actual, double expected) {
    if (Double.isNaN(expected)) {
      return Double.isNaN(actual);
    }
    if (Double.isInfinite(expected) || Double.isInfinite(actual)) {
      return actual == expected; // rtol * infinity would accept anything
    }
    return Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
  }
}
