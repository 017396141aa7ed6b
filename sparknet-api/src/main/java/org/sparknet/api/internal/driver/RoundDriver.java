package org.sparknet.api.internal.driver;

import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.worker.WorkerPlan;

/**
 * Runs the trainer's rounds over one training set: {@link DriverRound} (the results come to the
 * driver, which combines them), {@link AllReduceRound} (a barrier stage whose tasks sum among
 * themselves) or {@link AsyncRound} (tasks that push to a parameter server on the driver, without a
 * barrier).
 */
public interface RoundDriver {
  /** Runs one round's job. */
  DriverRound.Outcome run(DriverRound.Start start);

  /** The next weights from a round's totals. */
  float[] combine(RoundTotals totals, float[] centre);

  /** Ends what runs between rounds (an asynchronous job); the synchronous rounds hold nothing. */
  default void stop() {}

  /**
   * Whether Spark adds and releases {@code sc}'s executors as its tasks need them ({@code
   * spark.dynamicAllocation.enabled}): what decides how rounds may use the executors.
   */
  static boolean dynamicAllocation(JavaSparkContext sc) {
    return sc.getConf().getBoolean("spark.dynamicAllocation.enabled", false);
  }

  /** Stops {@code rounds} (when there are any) and closes {@code releaser} (when given). */
  static void stop(RoundDriver rounds, BroadcastReleaser releaser) {
    try {
      if (rounds != null) {
        rounds.stop();
      }
    } finally {
      if (releaser != null) {
        releaser.close();
      }
    }
  }

  /** Synchronous rounds over {@code data} whose results the driver combines. */
  static RoundDriver synchronous(
      JavaSparkContext sc, WorkerPlan plan, PackedData data, BroadcastReleaser releaser) {
    return new DriverRound(sc, plan, data, releaser);
  }

  /**
   * Synchronous rounds over {@code data} whose tasks sum among themselves in a barrier stage.
   *
   * @throws IllegalArgumentException when the cluster cannot run a barrier stage of one task per
   *     partition
   */
  static RoundDriver allReduce(
      JavaSparkContext sc, WorkerPlan plan, PackedData data, BroadcastReleaser releaser) {
    return new AllReduceRound(sc, plan, data, releaser);
  }

  /**
   * Downpour's rounds over {@code data} against a parameter server on the driver, which adds each
   * update divided by the worker count, so that one push from every worker moves the weights as far
   * as a synchronous round (the mean of the updates) and the solver's learning rate keeps its
   * meaning; a plain sum of the updates is a learning rate that grows with the worker count, which
   * diverges with Caffe's LeNet settings at two workers.
   *
   * @param staleness the most pushes by others between a worker's pull and its push for the push to
   *     be applied
   * @throws IllegalArgumentException with tau in seconds or compression
   */
  static RoundDriver downpour(
      JavaSparkContext sc,
      WorkerPlan plan,
      PackedData data,
      BroadcastReleaser releaser,
      int staleness) {
    float scale = 1f / Math.max(1, data.partitions());
    return new AsyncRound(sc, plan, data, releaser, scale, staleness);
  }

  /**
   * Asynchronous EASGD's rounds over {@code data}: the parameter server adds {@code alpha} times
   * each push.
   *
   * @throws IllegalArgumentException with tau in seconds or compression
   */
  static RoundDriver asyncElastic(
      JavaSparkContext sc,
      WorkerPlan plan,
      PackedData data,
      BroadcastReleaser releaser,
      float alpha,
      int staleness) {
    return new AsyncRound(sc, plan, data, releaser, alpha, staleness);
  }
}
