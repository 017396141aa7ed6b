package org.sparknet.bench.loop;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Median, minimum and maximum of repeated measurements of one quantity. */
public record Spread(double median, double min, double max, int n) {

  /** The spread of {@code values}; the median of an even count is the mean of the middle two. */
  public static Spread of(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("No measurements to summarise");
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    int m = v.length / 2;
    double median = v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    return new Spread(median, v[0], v[v.length - 1], v.length);
  }

  /** "median (min–max)" with {@code format} (for example "%.0f") for each number. */
  public String format(String format) {
    return String.format(
        Locale.ROOT, format + " (" + format + "–" + format + ")", median, min, max);
  }
}
