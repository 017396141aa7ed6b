package org.sparknet.api.internal.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Future;
import java.util.function.IntToDoubleFunction;
import org.apache.spark.BarrierTaskContext;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.data.DataShard;
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
  /**
   * The start of the message of a task whose ring failed (a neighbour's task failed or its executor
   * was lost): the driver submits such a round again.
   */
  public static final String LOST_PEER = "The all-reduce ring broke";

  private RingTasks() {}

  /** One partition's all-reduce round; runs inside a barrier stage. */
  public static Iterator<PartitionResult> train(
      WorkerPlan plan, RoundOrders orders, Iterator<DataShard> shards) {
    BarrierTaskContext ctx = BarrierTaskContext.get();
    int partition = ctx.partitionId();
    int size = ctx.getTaskInfos().length;
    String host = hostOf(ctx.getTaskInfos()[partition].address());
    String name = plan.trainerId().substring(0, 8) + "-r" + orders.round();
    BlasThreads.forTask();
    try (RingSum ring = new RingSum(name, partition, size, host, ctx::isInterrupted)) {
      String me = host + " " + ring.port();
      Future<String[]> peers = ring.publish(() -> ctx.allGather(me));
      DataShard shard = shards.hasNext() ? shards.next() : null;
      float[] held = RingCentres.find(plan.trainerId(), orders.round() - 1, orders.weightsToken());
      float[] centre = held != null ? held : orders.centre();
      Round round = new Round(plan, orders, centre, held != null ? 0 : 1);
      if (shard == null || shard.isEmpty()) {
        return List.of(round.sum(ring, peers, PartitionResult.idle(partition), ctx)).iterator();
      }
      WorkerRegistry.Acquired a = WorkerRegistry.acquireTraining(plan, partition, orders.round());
      synchronized (a.worker()) {
        // The values sent live in the worker's reused arrays: the ring reads them under its lock.
        PartitionResult r = a.worker().train(plan, orders, partition, shard, a.builtNow(), centre);
        return List.of(round.sum(ring, peers, r, ctx)).iterator();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(LOST_PEER + " in partition " + partition + ": " + e, e);
    }
  }

  /** What a task's sum needs besides the ring. */
  private record Round(WorkerPlan plan, RoundOrders orders, float[] centre, double fetched) {

    /**
     * Sums {@code mine} with every other partition's result: reduce-scatter (with the weights and
     * the divergences in each chunk's header), the rule's {@code combineSum} on this task's chunk,
     * all-gather. A divergence anywhere, seen by every task in its chunk's header, ends the round
     * with reports only.
     */
    PartitionResult sum(
        RingSum ring, Future<String[]> peers, PartitionResult mine, BarrierTaskContext ctx)
        throws IOException {
      int rank = ctx.partitionId();
      int size = ctx.getTaskInfos().length;
      boolean diverged = mine.report().divergence() != null;
      double weight = diverged || !mine.hasValues() ? 0 : mine.weight();
      String[] all = RingSum.await(peers);
      if (size > 1) {
        String[] right = all[(rank + 1) % size].split(" ");
        ring.connect(right[0], Integer.parseInt(right[1]), ctx.stageAttemptNumber());
      }
      int n = centre.length;
      double[] chunk =
          ring.reduceScatter(
              n, share(mine, weight, plan), new double[] {0.0 + weight, diverged ? 1.0 : 0.0});
      double total = chunk[0];
      if (chunk[1] > 0 || total == 0) {
        return new PartitionResult(mine.report(), null, null, fetched);
      }
      int from = RingSum.chunkStart(Math.floorMod(rank + 1, size), n, size);
      int len = chunk.length - HEADER;
      float[] combined =
          plan.averaging()
              .combineSum(
                  Arrays.copyOfRange(centre, from, from + len),
                  Averager.Sum.ofTotals(Arrays.copyOfRange(chunk, HEADER, chunk.length), total));
      float[] next = new float[n];
      System.arraycopy(combined, 0, next, from, len);
      ring.allGather(next);
      RingCentres.put(plan.trainerId(), orders.round(), orders.weightsToken(), next);
      return new PartitionResult(mine.report(), rank == 0 ? next : null, null, fetched);
    }
  }

  /** The values in front of each chunk: the task's weight and whether it diverged (1) or not. */
  private static final int HEADER = 2;

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
