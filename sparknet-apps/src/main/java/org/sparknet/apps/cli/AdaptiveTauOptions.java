package org.sparknet.apps.cli;

import java.util.Locale;
import org.sparknet.api.train.TrainerConfig;
import picocli.CommandLine.Option;

/**
 * The limits of adaptive tau ({@code --max-overhead}, {@code --tau-max}, for {@code --tau auto}).
 */
final class AdaptiveTauOptions {
  static final double DEFAULT_MAX_OVERHEAD_PERCENT = 5;
  static final int DEFAULT_TAU_MAX = 1000;

  @Option(
      names = "--max-overhead",
      paramLabel = "PERCENT",
      description =
          "With --tau auto: the share of a round outside the solver steps (broadcast,"
              + " aggregation, scheduling) that tau is chosen to stay under; default 5 (%%).")
  String maxOverhead;

  @Option(
      names = "--tau-max",
      paramLabel = "STEPS",
      description = "With --tau auto: the largest tau it chooses; default 1000.")
  Integer tauMax;

  /** Whether {@code --tau} asks for adaptive tau. */
  static boolean isAuto(String tau) {
    return tau != null && "auto".equalsIgnoreCase(tau.strip());
  }

  /**
   * Sets the rounds' schedule on {@code config}: tau "auto" (adaptive, within --max-overhead and
   * --tau-max), a number of steps, or (tau null) {@code seconds} per round; the adaptive limits are
   * refused without "auto".
   */
  void apply(TrainerConfig.Builder config, String tau, Double seconds) {
    if (isAuto(tau)) {
      config.optAdaptiveTau(maxOverheadFraction(), tauMax == null ? DEFAULT_TAU_MAX : tauMax);
      return;
    }
    if (maxOverhead != null || tauMax != null) {
      throw new IllegalArgumentException(
          "--max-overhead and --tau-max apply only to --tau auto (got "
              + (tau != null ? "--tau " + tau : "--tau-seconds " + seconds)
              + ")");
    }
    if (tau != null) {
      config.optTau(steps(tau));
    } else {
      config.optTauSeconds(seconds);
    }
  }

  /** {@code --tau} as a number of steps. */
  static int steps(String tau) {
    try {
      return Integer.parseInt(tau.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--tau must be a number of steps or 'auto' but was '" + tau + "'");
    }
  }

  private double maxOverheadFraction() {
    if (maxOverhead == null) {
      return DEFAULT_MAX_OVERHEAD_PERCENT / 100;
    }
    String s = maxOverhead.strip();
    s = s.endsWith("%") ? s.substring(0, s.length() - 1).strip() : s;
    double percent;
    try {
      percent = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      percent = Double.NaN;
    }
    if (!(percent > 0 && percent < 100)) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--max-overhead must be a percentage between 0 and 100 (e.g. 5) but was '%s'",
              maxOverhead));
    }
    return percent / 100;
  }
}
