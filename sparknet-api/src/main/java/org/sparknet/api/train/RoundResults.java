package org.sparknet.api.train;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.internal.driver.AsyncStats;
import org.sparknet.api.internal.driver.DriverRound;
import org.sparknet.api.internal.driver.RoundDriver;
import org.sparknet.api.internal.driver.TrainerState;
import org.sparknet.api.internal.wire.FlatWeights;
import org.sparknet.api.internal.wire.RoundTotals;

/**
 * Turns a round's combined results into what the trainer keeps and reports: the next weights (after
 * the divergence checks that stop training with the round and partition named) and the round's
 * metrics.
 */
final class RoundResults {
  private static final Logger LOG = LoggerFactory.getLogger(RoundResults.class);

  private RoundResults() {}

  /**
   * The next weights of round {@code r}.
   *
   * @throws TrainingDivergedException when a partition or the combined weights went non-finite; the
   *     state still holds the last good weights
   */
  static float[] nextWeights(RoundTotals t, RoundDriver round, TrainerState state, int r) {
    if (t.divergence() != null) {
      throw new TrainingDivergedException(
          "Training diverged in round "
              + r
              + ", partition "
              + t.divergedPartition()
              + ": non-finite "
              + t.divergence()
              + "; the weights after round "
              + state.round()
              + " are kept (getWeights()); lower the learning rate or check that partition's data",
          r,
          t.divergedPartition());
    }
    if (!t.hasValues()) {
      throw new IllegalStateException("Round " + r + ": no partition returned weights");
    }
    float[] next = round.combine(t, state.weights());
    if (FlatWeights.firstNonFinite(next) >= 0) {
      throw new TrainingDivergedException(
          "Training diverged in round "
              + r
              + ": the combined weights are non-finite ("
              + state.layout().toCollection(next).firstNonFinite()
              + "); the weights after round "
              + state.round()
              + " are kept",
          r,
          -1);
    }
    if (!t.restartedPartitions().isEmpty()) {
      LOG.warn(
          "Round {}: the solver of partition(s) {} restarted (momentum and iteration from zero):"
              + " the task ran on a new executor (one was lost, or dynamic allocation moved the"
              + " partition) or a stale net (a retried or"
              + " speculative copy); training goes on, but no longer bit for bit as an"
              + " undisturbed run",
          r,
          t.restartedPartitions());
    }
    return next;
  }

  /** Spark's job description of round {@code r} (of {@code planned}, when known). */
  static String jobDescription(int r, int planned, String tau) {
    return "SparkNet round " + r + (planned >= r ? "/" + planned : "") + " τ=" + tau;
  }

  /** The round's metrics so far: its totals, and the server's per-worker counts if asynchronous. */
  static RoundMetrics.Builder metrics(DriverRound.Outcome o, TrainerState state, long total) {
    RoundMetrics.Builder b = metrics(o.totals(), state, total);
    AsyncStats a = o.async();
    if (a != null) {
      List<WorkerPushes> workers = new ArrayList<>();
      for (int p = 0; p < a.workers(); p++) {
        AsyncStats.Worker w = a.worker(p);
        workers.add(
            new WorkerPushes(
                p,
                w.pushes(),
                w.dropped(),
                w.steps(),
                w.examples(),
                w.meanStaleness(),
                w.maxStaleness(),
                w.lostSteps()));
      }
      b.asyncWorkers(workers);
    }
    return b;
  }

  static RoundMetrics.Builder metrics(RoundTotals t, TrainerState state, long total) {
    long fed = 0;
    for (long p : state.positions()) {
      fed += p;
    }
    return RoundMetrics.builder()
        .round(state.round())
        .iteration(state.iteration())
        .steps(t.maxSteps())
        .examples(t.examples())
        .epoch(total == 0 ? 0 : (double) fed / total)
        .devices(t.devices())
        .meanLoss(t.lossSum() / t.examples());
  }

  /** Where the round's time went: the slowest worker's parts and the driver's. */
  static RoundMetrics.Timings timings(
      DriverRound.Outcome o, long combineNanos, long wallMillis, long validationMillis) {
    RoundTotals t = o.totals();
    long broadcast = o.broadcastNanos() / 1_000_000 + t.maxSetupMillis();
    long aggregate = combineNanos / 1_000_000 + t.maxExtractMillis();
    long compute = t.maxComputeMillis();
    return new RoundMetrics.Timings(
        compute,
        broadcast,
        aggregate,
        Math.max(0, wallMillis - compute - broadcast - aggregate),
        wallMillis,
        validationMillis);
  }
}
