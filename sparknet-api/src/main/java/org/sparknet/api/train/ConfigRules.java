package org.sparknet.api.train;

import org.sparknet.api.NetDefinition;

/**
 * The rules a {@link TrainerConfig} must meet as a whole, which no single setter can check because
 * the settings may be given in any order: they are applied once, when the builder builds. Apart
 * from {@link Checks}, which checks one value as it is set.
 */
final class ConfigRules {
  private ConfigRules() {}

  /** Throws when the builder was given no net: the one setting without a default. */
  static void requireNet(NetDefinition definition) {
    if (definition == null) {
      throw new IllegalStateException(
          "TrainerConfig needs a net definition: call setNetDefinition(...) before build()");
    }
  }

  /**
   * Returns {@code cfg} when its settings fit together; throws naming the setting to add or drop.
   */
  static TrainerConfig checked(TrainerConfig cfg) {
    if (cfg.deterministic()) {
      DeterministicTraining.check(
          cfg.tauSeconds(), cfg.maxOverhead(), cfg.averaging(), cfg.timeBudget().orElse(null));
    }
    if (cfg.targetMetric().isPresent() && cfg.validationInterval() == 0) {
      throw new IllegalArgumentException(
          "Target metric '" + cfg.targetMetric().get() + "' needs optValidationInterval(rounds)");
    }
    if (cfg.earlyStoppingPatience() > 0 && cfg.validationInterval() == 0) {
      throw new IllegalArgumentException(
          "Early stopping needs optValidationInterval(rounds) to measure progress");
    }
    return cfg;
  }
}
