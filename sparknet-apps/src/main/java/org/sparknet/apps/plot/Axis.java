package org.sparknet.apps.plot;

import java.util.Objects;

/**
 * One axis of an {@link XyChart}: its label, scale and range. Ticks are chosen by the plotting
 * library at round values, at most {@value #MAX_TICKS} of them: 1, 2 or 5 times a power of ten on a
 * linear axis (whole numbers only when {@link #integerTicks()}), powers of ten on a logarithmic
 * one.
 *
 * @param label the axis title, drawn beside the axis (rotated on the y axis)
 * @param scale linear or logarithmic
 * @param integerTicks whether only whole numbers get ticks (rounds, steps, counts)
 * @param min the smallest value the axis shows at least, or NaN to fit the data
 * @param max the largest value the axis shows at least, or NaN to fit the data
 */
public record Axis(String label, Scale scale, boolean integerTicks, double min, double max) {
  /** The most labelled ticks on a linear axis. */
  public static final int MAX_TICKS = 8;

  /** How values map to positions. */
  public enum Scale {
    LINEAR,
    /** Base 10; every value drawn on it must be positive. */
    LOG
  }

  public Axis {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(scale, "scale");
    if (integerTicks && scale == Scale.LOG) {
      throw new IllegalArgumentException(
          "Axis '" + label + "' is logarithmic: its ticks are powers of ten already");
    }
    if (Double.isNaN(min) != Double.isNaN(max)) {
      throw new IllegalArgumentException(
          "Axis '" + label + "' needs both ends of its range or neither, not " + min + ", " + max);
    }
    if (!Double.isNaN(min) && (!(min < max) || Double.isInfinite(min) || Double.isInfinite(max))
        || scale == Scale.LOG && min <= 0) {
      throw new IllegalArgumentException(
          "Axis '" + label + "' cannot span " + min + " to " + max + " (" + scale + " scale)");
    }
  }

  /** A linear axis that fits the data, with ticks at 1, 2 or 5 times a power of ten. */
  public static Axis linear(String label) {
    return new Axis(label, Scale.LINEAR, false, Double.NaN, Double.NaN);
  }

  /** A base-10 logarithmic axis that fits the data, with ticks at powers of ten. */
  public static Axis log(String label) {
    return new Axis(label, Scale.LOG, false, Double.NaN, Double.NaN);
  }

  /** This linear axis with ticks at whole numbers only. */
  public Axis integers() {
    return new Axis(label, scale, true, min, max);
  }

  /**
   * This axis showing at least {@code from} to {@code to} (wider where the data are), so that
   * charts side by side can share a range.
   */
  public Axis withRange(double from, double to) {
    return new Axis(label, scale, integerTicks, from, to);
  }

  /** Whether {@link #withRange} set a range. */
  public boolean hasRange() {
    return !Double.isNaN(min);
  }
}
