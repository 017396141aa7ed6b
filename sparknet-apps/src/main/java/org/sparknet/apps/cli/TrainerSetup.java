package org.sparknet.apps.cli;

import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.TimeBudget;
import org.sparknet.api.train.TrainerConfig;

/**
 * The trainer's settings as {@link TrainCommand}'s options give them: the averaging mode, the
 * {@link TrainerConfig} and the planned round count. Kept apart from the command so that the
 * command holds the picocli options and the order of the run, and this class the rules that join
 * options (which combinations are refused and why).
 */
final class TrainerSetup {
  private final TrainCommand cmd;

  TrainerSetup(TrainCommand cmd) {
    this.cmd = cmd;
  }

  /**
   * The rounds the run will take, for the ETA: --rounds, or max_iter over a fixed tau; 0: unknown.
   */
  int plannedRounds(SolverSettings s) {
    int byIter = 0;
    long maxIter = s.maxIter().value();
    if (maxIter > 0 && cmd.tau.seconds == null && !AdaptiveTauOptions.isAuto(cmd.tau.steps)) {
      int tauSteps = AdaptiveTauOptions.steps(cmd.tau.steps);
      byIter = (int) Math.min(Integer.MAX_VALUE, (maxIter + tauSteps - 1) / tauSteps);
    }
    if (cmd.rounds == null) {
      return byIter;
    }
    return byIter == 0 ? cmd.rounds : Math.min(cmd.rounds, byIter);
  }

  TrainerConfig config(
      NetDefinition def, Averaging avg, SolverSettings s, StoragePath metricsFile, int w) {
    TrainerConfig.Builder config =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optWorkers(w)
            .optAveraging(avg)
            .optMetricsFile(metricsFile.toString())
            .optGroupSize(cmd.groupSize);
    cmd.perGpu.apply(config);
    if (cmd.rounds != null) {
      config.optMaxRounds(cmd.rounds);
    }
    if (s.maxIter().value() > 0) {
      config.optMaxIterations(s.maxIter().value()); // no round runs past it
    }
    TimeBudget budget = cmd.timeBudget.budget(null);
    if (budget != null) {
      config.optTimeBudget(budget);
    }
    cmd.tauOptions.apply(config, cmd.tau.steps, cmd.tau.seconds);
    config.optCompress(cmd.compressOption.compression());
    if (cmd.checkpoint != null) {
      config.optCheckpointDir(TrainCommand.outputOption(cmd.checkpoint, "--checkpoint").toString());
    }
    if (cmd.deterministic) {
      checkDeterministic();
      config.optDeterministic(true);
    }
    return config.build();
  }

  /** --deterministic refuses whatever makes the steps depend on the machine's speed. */
  private void checkDeterministic() {
    if (cmd.tau.seconds != null || AdaptiveTauOptions.isAuto(cmd.tau.steps)) {
      throw new IllegalArgumentException(
          "--deterministic needs --tau STEPS; "
              + (cmd.tau.seconds != null ? "--tau-seconds" : "--tau auto")
              + " depends on the machine's speed");
    }
    if (cmd.timeBudget.given()) {
      throw new IllegalArgumentException(
          "--deterministic cannot be combined with --time-budget: the steps it plans depend on"
              + " the machine's speed; use --max-iter");
    }
  }

  Averaging averaging() {
    Averaging a = Averaging.parse(cmd.averaging, cmd.alpha, cmd.staleness, "--");
    if (a.isAsync() && cmd.deterministic) {
      throw new IllegalArgumentException(
          "--deterministic cannot be combined with --averaging "
              + cmd.averaging
              + ": the order of the asynchronous pushes depends on timing");
    }
    return a;
  }
}
