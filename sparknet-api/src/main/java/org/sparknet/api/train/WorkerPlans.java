package org.sparknet.api.train;

import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.driver.BroadcastReleaser;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.RoundDriver;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.worker.WorkerPlan;

/** The {@link WorkerPlan} a {@link TrainerConfig} gives its workers, and the rounds that run it. */
final class WorkerPlans {
  private WorkerPlans() {}

  /**
   * What the workers of trainer {@code trainerId} run, with weights of {@code layout}; called on
   * the driver once its own net is built, so that the plan carries that build's isolated check.
   */
  static WorkerPlan of(TrainerConfig cfg, String trainerId, WeightLayout layout) {
    NetDefinition onDriver = TaskDevices.forDriver(cfg.netDefinition());
    boolean checked = NetProvider.forEngine(onDriver.engine()).passedIsolatedCheck(onDriver);
    return WorkerPlan.builder()
        .checkedDevice(checked ? onDriver.device() : null)
        .trainerId(trainerId)
        .definition(cfg.netDefinition())
        .layout(layout)
        .tau(cfg.tau())
        .tauSeconds(cfg.tauSeconds())
        .seed(cfg.seed())
        .blobs(cfg.inputBlobs())
        .groupSize(cfg.groupSize())
        .gpuSharing(cfg.gpuSharing())
        .averaging(averaging(cfg))
        .build();
  }

  /** The averaging rule of the config's {@link Averaging} and {@link Compression}. */
  static AveragingStrategy averaging(TrainerConfig cfg) {
    AveragingStrategy rule = wiring(cfg.averaging()).rule();
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
    return wiring(cfg.averaging()).rounds().start(sc, plan, data, releaser);
  }

  /** How rounds of one mode start. */
  private interface Rounds {
    RoundDriver start(
        JavaSparkContext sc, WorkerPlan plan, PackedData data, BroadcastReleaser releaser);
  }

  /** What a mode runs: the rule that combines the workers' results, and the rounds. */
  private record Wiring(AveragingStrategy rule, Rounds rounds) {}

  /** Each {@link Averaging.Mode} mapped to its rule and its rounds: a new mode is one line here. */
  private static Wiring wiring(Averaging a) {
    int s = a.staleness();
    float alpha = a.alpha();
    return switch (a.mode()) {
      case PLAIN -> new Wiring(AveragingStrategy.plain(), RoundDriver::synchronous);
      case EASGD -> new Wiring(AveragingStrategy.elastic(alpha), RoundDriver::synchronous);
      case ALL_REDUCE -> new Wiring(AveragingStrategy.plain(), RoundDriver::allReduce);
      case DOWNPOUR ->
          new Wiring(
              AveragingStrategy.plain(),
              (sc, plan, data, rel) -> RoundDriver.downpour(sc, plan, data, rel, s));
      case EASGD_ASYNC ->
          new Wiring(
              AveragingStrategy.elastic(alpha),
              (sc, plan, data, rel) -> RoundDriver.asyncElastic(sc, plan, data, rel, alpha, s));
    };
  }
}
