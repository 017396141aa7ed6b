package org.sparknet.api.internal.driver;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.worker.RingTasks;
import org.sparknet.api.internal.worker.WorkerPlan;
import scala.collection.Iterator;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * Drives an all-reduce round: one Spark barrier stage ({@code rdd.barrier()}) whose tasks, after
 * their steps, sum their results in a ring between themselves ({@link RingTasks}) and each end with
 * the next weights. The driver gets the reports and one copy of the next weights (partition 0's
 * result), whatever the worker count, and keeps it as the trainer's weights: checkpoints, {@code
 * getWeights} and tests read it there, and a retried round starts from it.
 *
 * <p>The round's weights are still broadcast every round, but an executor reads the broadcast only
 * when it does not hold them already (the first round, a new executor after a loss, a retry):
 * otherwise nothing of the broadcast leaves the driver. When an executor is lost in the middle of a
 * round, the barrier stage fails whole and the round is submitted again ({@link #collect}); the
 * retry starts from the last completed round's weights.
 */
final class AllReduceRound implements RoundDriver {
  private static final Logger LOG = LoggerFactory.getLogger(AllReduceRound.class);

  private final JavaSparkContext sc;
  private final WorkerPlan plan;
  private final BroadcastReleaser releaser;
  private final RingSlot slot;
  private final JavaRDD<PartitionResult> rounds;
  private final DataSpread spread;

  AllReduceRound(
      JavaSparkContext sc, WorkerPlan plan, PackedData data, BroadcastReleaser releaser) {
    BarrierChecks.check(sc, data.partitions());
    this.sc = sc;
    this.plan = plan;
    this.releaser = releaser;
    this.slot = new RingSlot(plan);
    ClassTag<PartitionResult> tag = ClassTag$.MODULE$.apply(PartitionResult.class);
    this.rounds = data.shards().rdd().barrier().mapPartitions(slot, true, tag).toJavaRDD();
    this.spread = new DataSpread(sc, data);
  }

  @Override
  public DriverRound.Outcome run(DriverRound.Start start) {
    spread.beforeRound(start.round());
    RoundBroadcasts broadcasts = RoundBroadcasts.of(sc, start, null);
    long broadcastNanos = broadcasts.broadcastNanos();
    slot.orders = broadcasts.orders(start);
    try {
      List<PartitionResult> list = collect(start.round());
      long c0 = System.nanoTime();
      list.sort(Comparator.comparingInt(PartitionResult::partition));
      RoundTotals totals = RoundTotals.onDriver(plan.compression());
      int fetched = 0;
      for (PartitionResult r : list) {
        totals.addReduced(r);
        fetched += r.weight() > 0 ? 1 : 0;
      }
      if (fetched > 0) {
        LOG.info(
            "Round {}: {} task(s) read the round's weights from the driver",
            start.round(),
            fetched);
      }
      return new DriverRound.Outcome(totals, broadcastNanos, System.nanoTime() - c0);
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      slot.orders = null;
      broadcasts.release(releaser);
    }
  }

  /**
   * The round's results. Spark does not run a failed barrier result stage again ("Could not recover
   * from a failed barrier ResultStage"), so a round whose stage failed because an executor was lost
   * or a ring connection broke is submitted again here, whole, with the same orders (the last
   * completed round's weights), up to {@code spark.stage.maxConsecutiveAttempts} times. Any other
   * failure (a task's own error) is not retried.
   */
  private List<PartitionResult> collect(int round) {
    int attempts = sc.getConf().getInt("spark.stage.maxConsecutiveAttempts", 4);
    for (int attempt = 1; ; attempt++) {
      try {
        return new ArrayList<>(rounds.collect());
      } catch (Exception e) { // SparkException is checked, though Java's signature hides it
        if (attempt >= attempts || !lostPeer(e)) {
          throw TaskFailures.unwrap(e);
        }
        LOG.warn(
            "Round {}: its barrier stage failed ({}); running it again whole from round {}'s"
                + " weights (attempt {} of {})",
            round,
            firstLine(e.getMessage()),
            round - 1,
            attempt + 1,
            attempts);
      }
    }
  }

  /** Whether a barrier stage failed because a task's executor or its ring neighbour went away. */
  private static boolean lostPeer(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      String m = String.valueOf(c.getMessage());
      if (m.contains("ExecutorLostFailure")
          || m.contains("closed its connection")
          || m.contains(RingTasks.LOST_PEER)) {
        return true;
      }
    }
    return false;
  }

  private static String firstLine(String m) {
    if (m == null) {
      return "";
    }
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }

  /** The weights the executors summed (see {@link RingTasks}). */
  @Override
  public float[] combine(RoundTotals totals, float[] centre) {
    return totals.reduced();
  }

  /** The function every round's barrier tasks run, holding the orders of the round submitted. */
  private static final class RingSlot
      extends AbstractFunction1<Iterator<DataShard>, Iterator<PartitionResult>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final WorkerPlan plan;
    private RoundOrders orders;

    RingSlot(WorkerPlan plan) {
      this.plan = plan;
    }

    @Override
    public Iterator<PartitionResult> apply(Iterator<DataShard> shards) {
      if (orders == null) {
        throw new IllegalStateException("A SparkNet round ran without its orders (a stale job?)");
      }
      return CollectionConverters.asScala(
          RingTasks.train(plan, orders, CollectionConverters.asJava(shards)));
    }
  }
}
