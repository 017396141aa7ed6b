package org.sparknet.api.internal.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.apache.spark.BarrierTaskContext;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;

/**
 * What an all-reduce round's barrier tasks run, one partition each: the partition's steps as in
 * {@link WorkerTasks#train}, then the sum of every partition's result over a ring between the tasks
 * ({@link RingSum}), and the averaging rule's {@code combineSum} applied by every task to the same
 * sum, so that each executor ends the round holding the next weights ({@link RingCentres}).
 *
 * <p>The result each task sends back is its report only, except partition 0's, which carries the
 * next weights: the driver keeps them (checkpoints, {@code getWeights}, tests, and the broadcast a
 * retried round or a new executor reads), and the bytes through the driver stay one copy of the
 * weights a round whatever the worker count. Its {@code weight} is 1 when the task read the
 * driver's broadcast of the centre, 0 when it had the centre already.
 */
public final class RingTasks {
  private RingTasks() {}

  /** One partition's all-reduce round; runs inside a barrier stage. */
  public static Iterator<PartitionResult> train(
      WorkerPlan plan, RoundOrders orders, Iterator<DataShard> shards) {
    BarrierTaskContext ctx = BarrierTaskContext.get();
    int partition = ctx.partitionId();
    BlasThreads.forTask();
    DataShard shard = shards.hasNext() ? shards.next() : null;
    float[] held = RingCentres.find(plan.trainerId(), orders.round() - 1, orders.weightsToken());
    float[] centre = held != null ? held : orders.centre();
    double fetched = held != null ? 0 : 1;
    if (shard == null || shard.isEmpty()) {
      return List.of(ring(ctx, plan, orders, centre, PartitionResult.idle(partition), fetched))
          .iterator();
    }
    WorkerRegistry.Acquired a =
        WorkerRegistry.acquire(
            plan.trainerId(),
            WorkerRegistry.Role.TRAIN,
            partition,
            plan.definitionFor(partition),
            plan.groupSize(),
            orders.round());
    synchronized (a.worker()) {
      // The values sent live in the worker's reused arrays: the ring reads them under its lock.
      PartitionResult r = a.worker().train(plan, orders, partition, shard, a.builtNow(), centre);
      return List.of(ring(ctx, plan, orders, centre, r, fetched)).iterator();
    }
  }

  /** Sums {@code mine} with every other partition's result; see the class comment. */
  private static PartitionResult ring(
      BarrierTaskContext ctx,
      WorkerPlan plan,
      RoundOrders orders,
      float[] centre,
      PartitionResult mine,
      double fetched) {
    int rank = ctx.partitionId();
    int size = ctx.getTaskInfos().length;
    String host = hostOf(ctx.getTaskInfos()[rank].address());
    String name = plan.trainerId().substring(0, 8) + "-r" + orders.round();
    boolean diverged = mine.report().divergence() != null;
    double weight = diverged || !mine.hasValues() ? 0 : mine.weight();
    try (RingSum ring = new RingSum(name, rank, size, host, ctx::isInterrupted)) {
      String[] all = ctx.allGather(host + " " + ring.port() + " " + weight + " " + diverged);
      double total = 0;
      boolean anyDiverged = false;
      for (String m : all) {
        String[] f = m.split(" ");
        total += Double.parseDouble(f[2]);
        anyDiverged |= Boolean.parseBoolean(f[3]);
      }
      if (anyDiverged || total == 0) {
        return new PartitionResult(mine.report(), null, null, fetched);
      }
      String[] right = all[(rank + 1) % size].split(" ");
      if (size > 1) {
        ring.connect(right[0], Integer.parseInt(right[1]), ctx.stageAttemptNumber());
      }
      float[] next = sum(ring, plan.averaging(), centre, share(mine, weight, plan), total, size);
      RingCentres.put(plan.trainerId(), orders.round(), orders.weightsToken(), next);
      return new PartitionResult(mine.report(), rank == 0 ? next : null, null, fetched);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reduce-scatter, the rule's {@code combineSum} on this task's chunk, then all-gather. */
  private static float[] sum(
      RingSum ring,
      AveragingStrategy rule,
      float[] centre,
      IntToDoubleFunction own,
      double total,
      int size)
      throws IOException {
    int n = centre.length;
    int rank = ring.rank();
    double[] chunk;
    int mine = Math.floorMod(rank + 1, size);
    int from = RingSum.chunkStart(mine, n, size);
    if (size == 1) {
      chunk = new double[n];
      for (int j = 0; j < n; j++) {
        chunk[j] = own.applyAsDouble(j);
      }
    } else {
      chunk = ring.reduceScatter(n, own);
    }
    float[] combined =
        rule.combineSum(
            Arrays.copyOfRange(centre, from, from + chunk.length),
            Averager.Sum.ofTotals(chunk, total));
    float[] next = new float[n];
    System.arraycopy(combined, 0, next, from, combined.length);
    if (size > 1) {
      ring.allGather(next);
    }
    return next;
  }

  /**
   * A task's share of the sum at each index, as the driver's {@code Averager.Sum} adds it to its
   * zero: {@code 0.0 + weight·value} (the 16-bit offsets decoded; zero for an idle task).
   */
  private static IntToDoubleFunction share(PartitionResult r, double weight, WorkerPlan plan) {
    if (weight == 0) {
      return j -> 0.0;
    }
    if (r.packed() != null) {
      short[] p = r.packed();
      float[] table = new float[1 << 16];
      for (int h = 0; h < table.length; h++) {
        table[h] = plan.compression().decode((short) h);
      }
      return j -> 0.0 + weight * table[p[j] & 0xffff];
    }
    float[] v = r.values();
    return j -> 0.0 + weight * v[j];
  }

  /** The host of a barrier task's address ("host:port"). */
  private static String hostOf(String address) {
    int colon = address.lastIndexOf(':');
    return colon > 0 ? address.substring(0, colon) : address;
  }
}
