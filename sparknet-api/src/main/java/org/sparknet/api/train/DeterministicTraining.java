package org.sparknet.api.train;

/** What deterministic training ({@code TrainerConfig.optDeterministic}) cannot be combined with. */
final class DeterministicTraining {
  private DeterministicTraining() {}

  /** Throws when a setting would make a run, or its resume, differ from run to run. */
  static void check(
      double tauSeconds, double maxOverhead, Averaging averaging, TimeBudget timeBudget) {
    if (timeBudget != null) {
      throw new IllegalArgumentException(
          "Deterministic training cannot have a time budget (optTimeBudget): the steps it plans"
              + " depend on the machine's speed; use optMaxIterations or drop optDeterministic");
    }
    if (tauSeconds > 0) {
      throw new IllegalArgumentException(
          "Deterministic training needs tau in steps (optTau), not seconds (optTauSeconds)");
    }
    if (averaging.isElastic()) {
      throw new IllegalArgumentException(
          "Deterministic training cannot use elastic averaging (optAveraging(elastic)):"
              + " checkpoints do not hold the EASGD workers' own weights, so a resumed run would"
              + " not repeat an uninterrupted one; use plain averaging or drop optDeterministic");
    }
    if (maxOverhead > 0) {
      throw new IllegalArgumentException(
          "Deterministic training needs a fixed tau (optTau): adaptive tau chooses each round's"
              + " tau from measured times, which differ from run to run");
    }
  }
}
