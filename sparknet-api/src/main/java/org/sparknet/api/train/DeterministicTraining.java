package org.sparknet.api.train;

import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.internal.driver.RoundDriver;

/** What deterministic training ({@code TrainerConfig.optDeterministic}) cannot be combined with. */
final class DeterministicTraining {
  private DeterministicTraining() {}

  /**
   * Throws when a setting would make a run, or its resume, differ from run to run. Every
   * synchronous averaging rule is deterministic (elastic included: checkpoints hold the workers'
   * own weights); the asynchronous ones are not: the order of the pushes depends on timing.
   */
  static void check(
      double tauSeconds, double maxOverhead, Averaging averaging, TimeBudget timeBudget) {
    if (averaging.isAsync()) {
      throw new IllegalArgumentException(
          "Deterministic training cannot use asynchronous averaging ("
              + averaging
              + "): the order in which the workers' updates reach the parameter server depends"
              + " on timing; use plain, elastic or all-reduce averaging, or drop optDeterministic");
    }
    if (timeBudget != null) {
      throw new IllegalArgumentException(
          "Deterministic training cannot have a time budget (optTimeBudget): the steps it plans"
              + " depend on the machine's speed; use optMaxIterations or drop optDeterministic");
    }
    if (tauSeconds > 0) {
      throw new IllegalArgumentException(
          "Deterministic training needs tau in steps (optTau), not seconds (optTauSeconds)");
    }
    if (maxOverhead > 0) {
      throw new IllegalArgumentException(
          "Deterministic training needs a fixed tau (optTau): adaptive tau chooses each round's"
              + " tau from measured times, which differ from run to run");
    }
  }

  /**
   * Throws when the cluster would make a deterministic run differ from run to run: under dynamic
   * allocation executors come and go between rounds, and a partition that moves to another executor
   * restarts its solver there.
   */
  static void checkCluster(JavaSparkContext sc) {
    if (RoundDriver.dynamicAllocation(sc)) {
      throw new IllegalArgumentException(
          "Deterministic training (optDeterministic, --deterministic) keeps every partition on"
              + " one executor's net, which dynamic allocation (spark.dynamicAllocation.enabled="
              + "true) cannot promise: Spark adds and releases executors between rounds, and a"
              + " partition that moves restarts its solver; set spark.dynamicAllocation.enabled="
              + "false with a fixed number of executors, or drop optDeterministic");
    }
  }
}
