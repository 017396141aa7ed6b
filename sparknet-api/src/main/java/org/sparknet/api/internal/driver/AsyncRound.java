package org.sparknet.api.internal.driver;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.SolverState;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.ServerLink;
import org.sparknet.api.internal.worker.AsyncTasks;
import org.sparknet.api.internal.worker.WorkerPlan;

/**
 * Drives an asynchronous round (Downpour, asynchronous EASGD): opens a {@link ParameterServer} on
 * the driver holding the round's weights and a budget of {@code tau} steps per worker, runs one
 * Spark job whose tasks pull, train and push against it with no barrier between them ({@link
 * AsyncTasks}) until the budget is spent, and ends with the server's centre as the next weights. A
 * slow worker therefore holds back only its own pushes; the others spend the budget meanwhile.
 *
 * <p>A task that fails (its executor lost) is run again by Spark: the new attempt pulls the current
 * centre, so the run loses only the update the lost worker had not pushed yet.
 */
final class AsyncRound implements RoundDriver {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncRound.class);

  private final JavaSparkContext sc;
  private final WorkerPlan plan;
  private final BroadcastReleaser releaser;
  private final AsyncSlot slot;
  private final JavaRDD<PartitionResult> rounds;
  private final int partitions;
  private final DataSpread spread;
  private final float scale;
  private final int staleness;
  private float[] next;

  /**
   * @param scale what the server multiplies a push by (1 Downpour, alpha asynchronous EASGD)
   * @param staleness the most pushes between a worker's pull and its push for it to count
   */
  AsyncRound(
      JavaSparkContext sc,
      WorkerPlan plan,
      PackedData data,
      BroadcastReleaser releaser,
      float scale,
      int staleness) {
    if (plan.tau() <= 0) {
      throw new IllegalArgumentException(
          "Asynchronous averaging needs tau in steps (optTau / --tau), not seconds");
    }
    if (plan.compression() != Compression.NONE) {
      throw new IllegalArgumentException(
          "Asynchronous averaging pushes 32-bit updates; drop the compression ("
              + plan.compression()
              + ")");
    }
    this.sc = sc;
    this.plan = plan;
    this.releaser = releaser;
    this.slot = new AsyncSlot(plan);
    AsyncSlot s = slot;
    this.rounds = data.shards().mapPartitionsWithIndex(s::train, true);
    this.partitions = data.partitions();
    this.spread = new DataSpread(sc, data);
    this.scale = scale;
    this.staleness = staleness;
  }

  @Override
  public DriverRound.Outcome run(DriverRound.Start start) {
    spread.beforeRound(start.round());
    int tau = start.steps().tau() > 0 ? start.steps().tau() : plan.tau();
    String host = sc.getConf().get("spark.driver.host", "localhost");
    Broadcast<SolverState[]> states =
        start.solverStates() == null ? null : sc.broadcast(start.solverStates());
    Broadcast<float[][]> own =
        start.workerWeights() == null ? null : sc.broadcast(start.workerWeights());
    long t0 = System.nanoTime();
    try (ParameterServer server =
        new ParameterServer(
            host, start.weights(), scale, staleness, (long) tau * partitions, tau, partitions)) {
      long openNanos = System.nanoTime() - t0;
      slot.server = server.address();
      slot.orders =
          new RoundOrders(
              start.round(),
              null,
              start.positions(),
              start.weightsToken(),
              states,
              own,
              start.steps(),
              null);
      List<PartitionResult> results = rounds.collect();
      RoundTotals totals = RoundTotals.onDriver(plan.compression());
      results.stream()
          .sorted(java.util.Comparator.comparingInt(PartitionResult::partition))
          .forEach(totals::addReduced);
      next = server.centre();
      totals.addReduced(new PartitionResult(results.get(0).report(), next, 1));
      AsyncStats stats = server.stats();
      LOG.info(
          "SparkNet asynchronous round {}: {} pushes applied, server at version {}{}",
          start.round(),
          stats.pushes(),
          server.version(),
          stats.summary());
      return new DriverRound.Outcome(totals, openNanos, 0, stats);
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      slot.orders = null;
      slot.server = null;
      releaser.release(states);
      releaser.release(own);
    }
  }

  /** The server's centre at the end of the round. */
  @Override
  public float[] combine(RoundTotals totals, float[] centre) {
    return totals.reduced();
  }

  /** The function every round's tasks run, holding the orders and server of the round. */
  private static final class AsyncSlot implements Serializable {
    private static final long serialVersionUID = 1L;
    private final WorkerPlan plan;
    private RoundOrders orders;
    private ServerLink.Address server;

    AsyncSlot(WorkerPlan plan) {
      this.plan = plan;
    }

    Iterator<PartitionResult> train(int partition, Iterator<DataShard> shards) {
      if (orders == null || server == null) {
        throw new IllegalStateException("A SparkNet round ran without its orders (a stale job?)");
      }
      return AsyncTasks.train(plan, orders, server, partition, shards);
    }
  }
}
