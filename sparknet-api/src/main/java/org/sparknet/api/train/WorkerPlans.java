package org.sparknet.api.train;

import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.driver.BroadcastReleaser;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.RoundDriver;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.worker.WorkerPlan;

/** The {@link WorkerPlan} a {@link TrainerConfig} gives its workers, and the rounds that run it. */
final class WorkerPlans {
  private WorkerPlans() {}

  /** What the workers of trainer {@code trainerId} run, with weights of {@code layout}. */
  static WorkerPlan of(TrainerConfig cfg, String trainerId, WeightLayout layout) {
    return WorkerPlan.builder()
        .trainerId(trainerId)
        .definition(cfg.netDefinition())
        .layout(layout)
        .tau(cfg.tau())
        .tauSeconds(cfg.tauSeconds())
        .seed(cfg.seed())
        .blobs(cfg.inputBlobs())
        .groupSize(cfg.groupSize())
        .averaging(averaging(cfg))
        .build();
  }

  /** The averaging rule of the config's {@link Averaging} and {@link Compression}. */
  static AveragingStrategy averaging(TrainerConfig cfg) {
    AveragingStrategy rule =
        cfg.averaging().isElastic()
            ? AveragingStrategy.elastic(cfg.averaging().alpha())
            : AveragingStrategy.plain();
    return cfg.compression() == Compression.NONE
        ? rule
        : AveragingStrategy.compressed(rule, cfg.compression());
  }

  /**
   * The rounds of the config's averaging over {@code data}; {@code old} (if any) is stopped.
   *
   * @throws IllegalArgumentException when the cluster cannot run them as configured
   */
  static RoundDriver rounds(
      JavaSparkContext sc,
      TrainerConfig cfg,
      WorkerPlan plan,
      PackedData data,
      BroadcastReleaser releaser,
      RoundDriver old) {
    RoundDriver.stop(old, null);
    if (cfg.deterministic()) {
      DeterministicTraining.checkCluster(sc);
    }
    Averaging a = cfg.averaging();
    if (a.isAsync()) {
      return RoundDriver.async(
          sc, plan, data, releaser, a.isElastic() ? a.alpha() : -1f, a.staleness());
    }
    return RoundDriver.of(sc, plan, data, releaser, a.isAllReduce());
  }
}
