package org.sparknet.api.train;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The config's stop criteria, checked after each round: max rounds (counted from the very first
 * round, resumed ones included), max epochs, max iterations, the target metric, and early stopping
 * (which remembers the best validation so far).
 */
final class StopRules {
  private static final Logger LOG = LoggerFactory.getLogger(StopRules.class);

  /** Epochs are a ratio of example counts: 1.0 may come out a hair below. */
  private static final double EPOCH_SLACK = 1e-9;

  private final TrainerConfig cfg;
  private double best = Double.NaN;
  private int validationsSinceBest;

  StopRules(TrainerConfig cfg) {
    this.cfg = cfg;
  }

  /** Whether the config has any criterion at all. */
  boolean any() {
    return cfg.maxRounds() > 0
        || cfg.maxEpochs() > 0
        || cfg.maxIterations() > 0
        || cfg.targetMetric().isPresent()
        || cfg.earlyStoppingPatience() > 0
        || cfg.timeBudget().isPresent();
  }

  /** Throws when the config has no criterion at all, naming the settings that make one. */
  void requireAny() {
    if (!any()) {
      throw new IllegalStateException(
          "train() needs a stop criterion in the config (optMaxRounds, optMaxEpochs,"
              + " optMaxIterations, optTimeBudget, optTargetMetric or optEarlyStoppingPatience); or"
              + " call train(rounds)");
    }
  }

  /**
   * Whether a smaller value of {@code metric} is better: names containing "loss" or "error" are
   * minimised, everything else (accuracy) maximised.
   */
  static boolean lowerIsBetter(String metric) {
    String m = metric.toLowerCase(Locale.ROOT);
    return m.contains("loss") || m.contains("error");
  }

  boolean shouldStop(RoundMetrics m) {
    if (cfg.maxRounds() > 0 && m.round() >= cfg.maxRounds()) {
      return true;
    }
    if (cfg.maxEpochs() > 0 && m.epoch() >= cfg.maxEpochs() - EPOCH_SLACK) {
      return true;
    }
    if (cfg.maxIterations() > 0 && m.iteration() >= cfg.maxIterations()) {
      return true;
    }
    if (m.validation().isEmpty()) {
      return false;
    }
    String metric = cfg.targetMetric().orElse("loss");
    Float v = m.validation().get(metric);
    if (v == null) {
      if (cfg.targetMetric().isPresent()) {
        throw new IllegalStateException(
            "The test net has no output '"
                + metric
                + "' (it has "
                + m.validation().keySet()
                + "); fix optTargetMetric");
      }
      return false;
    }
    return targetReached(metric, v, m.round()) || patienceRunOut(metric, v, m.round());
  }

  private boolean targetReached(String metric, float v, int round) {
    boolean lower = lowerIsBetter(metric);
    if (cfg.targetMetric().isPresent()
        && (lower ? v <= cfg.targetValue() : v >= cfg.targetValue())) {
      LOG.info("Target {} {} reached in round {}: {}", metric, cfg.targetValue(), round, v);
      return true;
    }
    return false;
  }

  private boolean patienceRunOut(String metric, float v, int round) {
    if (cfg.earlyStoppingPatience() == 0) {
      return false;
    }
    boolean lower = lowerIsBetter(metric);
    if (Double.isNaN(best) || (lower ? v < best : v > best)) {
      best = v;
      validationsSinceBest = 0;
      return false;
    }
    if (++validationsSinceBest >= cfg.earlyStoppingPatience()) {
      LOG.info(
          "Early stop in round {}: {} has not improved on {} for {} validations",
          round,
          metric,
          best,
          validationsSinceBest);
      return true;
    }
    return false;
  }
}
