package org.sparknet.api.internal.worker;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.FlatWeights;
import org.sparknet.api.internal.wire.LocalHandoff;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.PartitionSolverState;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerLineages;
import org.sparknet.api.predict.BatchPredictor;
import org.sparknet.api.predict.OutputSums;
import org.sparknet.api.predict.ShardBatches;

/**
 * What the trainer's Spark tasks run on the executors, one partition each: a training round, a test
 * of the current weights, and reading a worker's weights or solver state back.
 */
public final class WorkerTasks {
  private WorkerTasks() {}

  /** One partition's training round (an idle result for a partition without data). */
  public static Iterator<PartitionResult> train(
      WorkerPlan plan, RoundOrders orders, int partition, Iterator<DataShard> shards) {
    TrainStart s = startTraining(plan, orders, partition, shards);
    if (s == null) {
      return List.of(PartitionResult.idle(partition)).iterator();
    }
    WorkerRegistry.Acquired a = s.acquired();
    PartitionResult r;
    synchronized (a.worker()) {
      r = a.worker().train(plan, orders, partition, s.shard(), a.builtNow(), orders.centre());
    }
    return List.of(orders.localKey() == null ? r : LocalHandoff.put(orders.localKey(), r))
        .iterator();
  }

  /** A training task's shard and this partition's training worker. */
  record TrainStart(DataShard shard, WorkerRegistry.Acquired acquired) {}

  /**
   * What every training task does first, on its own thread: sets the BLAS threads, takes the
   * partition's shard and acquires its training worker; null for a partition without data, which
   * then builds no worker.
   */
  static TrainStart startTraining(
      WorkerPlan plan, RoundOrders orders, int partition, Iterator<DataShard> shards) {
    BlasThreads.forTask();
    DataShard shard = shards.hasNext() ? shards.next() : null;
    if (shard == null || shard.isEmpty()) {
      return null;
    }
    return new TrainStart(shard, WorkerRegistry.acquireTraining(plan, partition, orders.round()));
  }

  /**
   * Tests {@code weights} on one validation partition, the whole shard once in stored order, on
   * test net {@code testNet} of this partition's net (kept for later tests).
   */
  public static Iterator<OutputSums> test(
      WorkerPlan plan,
      Broadcast<float[]> weights,
      int testNet,
      int partition,
      Iterator<DataShard> shards) {
    BlasThreads.forTask();
    DataShard shard = shards.hasNext() ? shards.next() : null;
    if (shard == null || shard.isEmpty()) {
      return List.of(new OutputSums()).iterator();
    }
    plan.acceptDriverCheck();
    Worker w =
        WorkerRegistry.acquire(
                plan.trainerId(),
                WorkerRegistry.Role.TEST,
                partition,
                plan.definition(),
                1,
                plan.gpuSharing().uncapped(), // validation partitions are not the workers
                0)
            .worker();
    synchronized (w) {
      FlatWeights.set(w.net(), plan.layout(), weights.value());
      BatchPredictor predictor = new BatchPredictor(w.net(), plan.blobs(), testNet);
      return List.of(predictor.evaluate(new ShardBatches(shard, plan.blobs()))).iterator();
    }
  }

  /**
   * The weights of partition {@code p}'s worker after the round of {@code taken}, or an empty array
   * if this JVM has no worker whose result of that round the driver took.
   */
  public static Iterator<float[]> weights(
      String trainerId, WeightLayout layout, int partition, WorkerLineages taken) {
    Worker w = WorkerRegistry.findCurrent(trainerId, partition, taken);
    if (w == null) {
      return List.of(new float[0]).iterator();
    }
    synchronized (w) {
      return List.of(FlatWeights.get(w.net(), layout)).iterator();
    }
  }

  /**
   * The solver state of partition {@code p}'s worker after the round of {@code taken}, for a
   * checkpoint.
   */
  public static Iterator<PartitionSolverState> solverState(
      String trainerId, int partition, WorkerLineages taken) {
    Worker w = WorkerRegistry.findCurrent(trainerId, partition, taken);
    if (w == null) {
      return List.of(new PartitionSolverState(partition, null)).iterator();
    }
    synchronized (w) {
      return List.of(new PartitionSolverState(partition, w.net().getSolverState())).iterator();
    }
  }
}
