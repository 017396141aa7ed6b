package org.sparknet.bench.loop;

import java.util.List;
import java.util.Locale;

/**
 * Accuracy {@code ys} measured at {@code xs} (training seconds or epochs, rising): the lookups that
 * the time-to-accuracy and recipe sections report.
 */
record AccuracyCurve(List<Double> xs, List<Double> ys) {
  /** Slack for x values that are sums of round times or epoch fractions. */
  private static final double X_SLACK = 1e-6;

  double best() {
    return ys.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  double last() {
    return ys.get(ys.size() - 1);
  }

  /** The first x at which the accuracy is at least {@code target}, or NaN. */
  double reaching(double target) {
    for (int i = 0; i < xs.size(); i++) {
      if (ys.get(i) >= target) {
        return xs.get(i);
      }
    }
    return Double.NaN;
  }

  /** The last accuracy measured at or before {@code x}, formatted, or "–" if none was. */
  String at(double x) {
    String out = "–";
    for (int i = 0; i < xs.size(); i++) {
      if (xs.get(i) <= x + X_SLACK) {
        out = String.format(Locale.ROOT, "%.4f", ys.get(i));
      }
    }
    return out;
  }
}
