package org.sparknet.api.internal.driver;

import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.ServerLink;
import org.sparknet.api.internal.wire.WorkerReport;
import org.sparknet.api.internal.worker.AsyncTasks;
import org.sparknet.api.internal.worker.WorkerPlan;

/**
 * Drives asynchronous rounds (Downpour, asynchronous EASGD) against a {@link ParameterServer} on
 * the driver. One Spark job, started by the first round and running on in the background across
 * rounds, has each task pull, train and push with no barrier between workers ({@link AsyncTasks}).
 * A round allows the server to grant {@code tau} steps per worker more, and one round ahead, and
 * ends when its steps are settled: the server's centre is then the round's weights, and the counts
 * of its pushes the round's reports. Because the workers may run a round ahead, a slow worker holds
 * back only its own pushes; the others spend the budget meanwhile.
 *
 * <p>When no round comes to allow more steps (training stopped, or a validation or checkpoint job
 * between rounds), the workers' pulls wait {@value #IDLE_MILLIS} ms and then end their tasks, so
 * the job ends and frees its slots; the next round starts a new job from the server's centre. A
 * task that fails (its executor lost) is run again by Spark: the new attempt pulls the current
 * centre, so the run loses only the update the lost worker had not pushed.
 */
final class AsyncRound implements RoundDriver {
  private static final Logger LOG = LoggerFactory.getLogger(AsyncRound.class);
  static final long IDLE_MILLIS = 2_000;

  private final JavaSparkContext sc;
  private final WorkerPlan plan;
  private final BroadcastReleaser releaser;
  private final AsyncSlot slot;
  private final RoundJob rounds;
  private final float scale;
  private final int staleness;
  private ParameterServer server;
  private long serverToken;
  private long settledTarget;
  private long roundTarget;
  private AsyncStats before;
  private Future<List<PartitionResult>> job;
  private RoundBroadcasts jobBroadcasts = RoundBroadcasts.NONE;

  /**
   * @param scale what the server multiplies each push by ({@link RoundDriver#downpour}, {@link
   *     RoundDriver#asyncElastic})
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
    this.rounds = RoundJob.over(sc, data, slot::train);
    this.scale = scale;
    this.staleness = staleness;
  }

  @Override
  public DriverRound.Outcome run(DriverRound.Start start) {
    rounds.spread().beforeRound(start.round());
    long t0 = System.nanoTime();
    if (server != null && start.weightsToken() != serverToken) {
      stop(); // the weights were replaced from outside: serve the new ones
    }
    if (server == null) {
      server =
          new ParameterServer(
              sc.getConf().get("spark.driver.host", "localhost"),
              start.weights(),
              scale,
              staleness,
              plan.tau(),
              rounds.partitions(),
              IDLE_MILLIS);
      serverToken = start.weightsToken();
      settledTarget = server.settled();
      before = server.stats();
    }
    long budget = (long) plan.tau() * rounds.partitions();
    settledTarget += budget;
    server.allow(settledTarget + budget);
    // at least one push a round, also when the pushes of the round before ran past its target
    roundTarget = Math.max(settledTarget, server.settled() + 1);
    long openNanos = System.nanoTime() - t0;
    try {
      List<PartitionResult> ended = awaitRound(start);
      return outcome(start.round(), ended, openNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted in asynchronous round " + start.round(), e);
    }
  }

  /**
   * Waits for the round's steps, (re)starting the job when it is not running; its results if it
   * ended.
   */
  private List<PartitionResult> awaitRound(DriverRound.Start start) throws InterruptedException {
    while (true) {
      List<PartitionResult> ended = jobResults();
      if (ended != null && diverged(ended)) {
        return ended;
      }
      if (job == null) {
        submit(start);
      }
      Future<List<PartitionResult>> current = job;
      if (server.awaitSettled(roundTarget, current::isDone)) {
        return List.of();
      }
    }
  }

  /** The results of a job that has ended (and forgets it), null while it runs or without one. */
  private List<PartitionResult> jobResults() throws InterruptedException {
    if (job == null || !job.isDone()) {
      return null;
    }
    try {
      return job.get();
    } catch (ExecutionException e) {
      throw TaskFailures.unwrap(
          e.getCause() instanceof Exception c ? c : new IllegalStateException(e.getCause()));
    } finally {
      job = null;
      jobBroadcasts.release(releaser);
      jobBroadcasts = RoundBroadcasts.NONE;
    }
  }

  private static boolean diverged(List<PartitionResult> results) {
    return results.stream().anyMatch(r -> r.report().divergence() != null);
  }

  private void submit(DriverRound.Start start) {
    jobBroadcasts = RoundBroadcasts.withoutWeights(sc, start);
    slot.server = server.address();
    slot.orders = jobBroadcasts.orders(start);
    String description = "SparkNet asynchronous training from round " + start.round();
    // a thread of its own per job: it ends with the job, so nothing is left to shut down
    FutureTask<List<PartitionResult>> task =
        new FutureTask<>(
            () -> {
              sc.setJobDescription(description);
              return rounds.rdd().collect();
            });
    Thread t = new Thread(task, "SparkNet asynchronous job");
    t.setDaemon(true);
    t.start();
    job = task;
  }

  /** The round's reports from the server's counts, and its centre as the next weights. */
  private DriverRound.Outcome outcome(int round, List<PartitionResult> ended, long openNanos) {
    AsyncStats now = server.stats();
    AsyncStats delta = now.minus(before);
    before = now;
    RoundTotals totals = RoundTotals.onDriver(plan.compression());
    for (int p = 0; p < rounds.partitions(); p++) {
      AsyncStats.Worker w = delta.worker(p);
      // steps: the round's share of the budget per worker, so that the run's iteration counts
      // as a synchronous run's would; each worker's own steps are in the server's counts.
      WorkerReport report =
          new WorkerReport(
              p,
              w.fed(),
              plan.tau(),
              w.fedLossSum(),
              WorkerReport.WorkerTimings.NONE,
              false,
              null,
              "",
              0);
      totals.addReduced(new PartitionResult(report, null, 0));
    }
    ended.stream().filter(r -> r.report().divergence() != null).forEach(totals::addReduced);
    totals.addReduced(PartitionResult.idle(0).withValues(server.centre()));
    LOG.info(
        "SparkNet asynchronous round {}: {} pushes applied, server at version {}{}",
        round,
        delta.pushes(),
        server.version(),
        delta.summary());
    return new DriverRound.Outcome(totals, openNanos, 0, delta);
  }

  /** The server's centre at the end of the round. */
  @Override
  public float[] combine(RoundTotals totals, float[] centre) {
    return totals.reduced();
  }

  /**
   * Stops the workers after the steps they hold, waits for the job to end and closes the server.
   */
  @Override
  public void stop() {
    if (server == null) {
      return;
    }
    server.stopGranting();
    try {
      if (job != null) {
        job.get(10, TimeUnit.MINUTES);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      LOG.warn("The asynchronous job ended with {}", e.toString());
    } finally {
      job = null;
      jobBroadcasts.release(releaser);
      jobBroadcasts = RoundBroadcasts.NONE;
      server.close();
      server = null;
    }
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
