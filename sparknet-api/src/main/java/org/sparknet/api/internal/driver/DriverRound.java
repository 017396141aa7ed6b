package org.sparknet.api.internal.driver;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.SolverState;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.LocalHandoff;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.WorkerLineages;
import org.sparknet.api.internal.worker.WorkerPlan;
import org.sparknet.api.internal.worker.WorkerTasks;

/**
 * Drives a training round from the driver: broadcasts the weights once, runs one task per partition
 * ({@link WorkerTasks#train}), and combines what comes back into {@link RoundTotals}. The next
 * weights are then {@link #combine}d from the totals: the example-weighted mean of the workers'
 * weights, or for elastic averaging the centre moved by {@code alpha} times the sum of the workers'
 * offsets.
 *
 * <p>One RDD serves every round of a training set. Spark serialises a job's function when the job
 * is submitted, so each round's tasks carry the {@link RoundOrders} that {@link #run} puts into the
 * function's {@link OrdersSlot} just before it submits the job, and clears when the job (retries
 * included) is over. Building a new RDD each round instead would put a closure cleaning and a
 * call-site capture on the driver's critical path.
 */
public final class DriverRound implements RoundDriver {
  private final JavaSparkContext sc;
  private final WorkerPlan plan;
  private final BroadcastReleaser releaser;
  private final OrdersSlot slot;
  private final RoundJob rounds;
  private boolean resultSizeChecked;

  /** The rounds over {@code data}; build a new one when the training data changes. */
  public DriverRound(
      JavaSparkContext sc, WorkerPlan plan, PackedData data, BroadcastReleaser releaser) {
    this.sc = sc;
    this.plan = plan;
    this.releaser = releaser;
    this.slot = new OrdersSlot(plan);
    this.rounds = RoundJob.over(sc, data, slot::train);
  }

  /**
   * What a round starts from.
   *
   * @param solverStates null, except in the first round after a resume with solver states
   * @param workerWeights null, except in the first round after a resume with the workers' own
   *     weights (by partition)
   * @param sumOnDriver bring every result to the driver and average in partition order
   *     (reproducible, one stage); else {@code treeAggregate} on the executors
   * @param steps the round's solver steps per worker
   * @param previous the solver histories of the results taken from the round before
   */
  public record Start(
      int round,
      float[] weights,
      long[] positions,
      long weightsToken,
      SolverState[] solverStates,
      float[][] workerWeights,
      boolean sumOnDriver,
      RoundSteps steps,
      WorkerLineages previous) {}

  /**
   * The round's combined results and the driver's share of its time.
   *
   * @param async the parameter server's per-worker counts (asynchronous rounds), or null
   */
  public record Outcome(
      RoundTotals totals, long broadcastNanos, long combineNanos, AsyncStats async) {
    public Outcome(RoundTotals totals, long broadcastNanos, long combineNanos) {
      this(totals, broadcastNanos, combineNanos, null);
    }
  }

  /**
   * Runs the round's job; the broadcasts are released (asynchronously) when it is over. In local
   * mode, when the results come to the driver, the weights are handed over by reference both ways
   * ({@link LocalHandoff}) unless {@value LocalHandoff#SETTING} is "false".
   */
  @Override
  public Outcome run(Start start) {
    rounds.spread().beforeRound(start.round());
    if (!resultSizeChecked) {
      checkResultSize(start.sumOnDriver());
      resultSizeChecked = true;
    }
    String localKey =
        start.sumOnDriver() && handsOver()
            ? LocalHandoff.key(plan.trainerId(), start.round())
            : null;
    RoundBroadcasts broadcasts = RoundBroadcasts.of(sc, start, localKey);
    long broadcastNanos = broadcasts.broadcastNanos();
    slot.orders = broadcasts.orders(start);
    try {
      if (start.sumOnDriver()) {
        List<PartitionResult> list = new ArrayList<>(rounds.rdd().collect());
        long c0 = System.nanoTime();
        if (localKey != null) {
          list.replaceAll(r -> LocalHandoff.take(localKey, r));
        }
        list.sort(Comparator.comparingInt(PartitionResult::partition));
        RoundTotals totals = RoundTotals.onDriver(plan.compression());
        list.forEach(totals::add);
        return new Outcome(totals, broadcastNanos, System.nanoTime() - c0);
      }
      RoundTotals totals =
          rounds
              .rdd()
              .treeAggregate(
                  new RoundTotals(plan.compression()), RoundTotals::add, RoundTotals::merge, 2);
      return new Outcome(totals, broadcastNanos, 0);
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      slot.orders = null;
      if (localKey != null) {
        LocalHandoff.clear(localKey);
      }
      broadcasts.release(releaser);
    }
  }

  /** Local mode (the tasks run in this JVM), unless the hand-over is turned off. */
  private boolean handsOver() {
    String off = sc.getLocalProperty(LocalHandoff.SETTING);
    if (off == null) {
      off = sc.getConf().get(LocalHandoff.SETTING, "true");
    }
    return sc.isLocal() && !"false".equalsIgnoreCase(off.strip());
  }

  /**
   * Fails before the first job when a round's results would exceed {@code
   * spark.driver.maxResultSize}: Spark would fail the job only after the workers trained. On the
   * driver path every partition sends its weights; {@code treeAggregate} brings about the square
   * root of the partitions' count of partial sums in double.
   */
  private void checkResultSize(boolean onDriver) {
    long limit = sc.getConf().getSizeAsBytes("spark.driver.maxResultSize", "1g");
    long floats = plan.layout().size();
    long results =
        onDriver ? rounds.partitions() : (long) Math.ceil(Math.sqrt(rounds.partitions()));
    long each = onDriver ? floats * plan.compression().bytesPerValue() : floats * Double.BYTES;
    long total = results * (each + 4096);
    if (limit > 0 && total > limit) {
      throw new IllegalArgumentException(
          String.format(
              java.util.Locale.ROOT,
              "A round brings %d results of %,d bytes (%,d weights) to the driver, %,d bytes in"
                  + " all, above spark.driver.maxResultSize (%,d bytes); set"
                  + " spark.driver.maxResultSize to at least %dm (0: no limit), or train with"
                  + " fewer workers or compressed results",
              results,
              each,
              floats,
              total,
              limit,
              total / (1 << 20) + 1));
    }
  }

  /** The next weights from a round's totals, by the plan's averaging rule. */
  @Override
  public float[] combine(RoundTotals totals, float[] centre) {
    return plan.averaging().combine(centre, totals);
  }

  /** The function every round's tasks run, holding the orders of the round being submitted. */
  private static final class OrdersSlot implements Serializable {
    private static final long serialVersionUID = 1L;
    private final WorkerPlan plan;
    private RoundOrders orders;

    OrdersSlot(WorkerPlan plan) {
      this.plan = plan;
    }

    Iterator<PartitionResult> train(int partition, Iterator<DataShard> shards) {
      if (orders == null) {
        throw new IllegalStateException("A SparkNet round ran without its orders (a stale job?)");
      }
      return WorkerTasks.train(plan, orders, partition, shards);
    }
  }
}
