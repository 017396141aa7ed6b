package org.sparknet.api.internal.worker;

import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.NetProvider;
import org.sparknet.api.SolverState;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.averaging.AveragingStrategy.Sent;
import org.sparknet.api.internal.wire.FlatWeights;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerReport;

/**
 * One partition's worker on an executor: its net, which lives across rounds (and with it the
 * solver's momentum and iteration), and what the trainer must know about it. Held by {@link
 * WorkerRegistry}; a worker is used by one task at a time (callers synchronise on it).
 */
public final class Worker {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  private final String engine;
  private Net net;
  private List<String> devices;

  /** Where the net runs as reports show it: "gpu:0 NVIDIA H100 80GB HBM3 (cuBLAS 13.0, ...)". */
  private String described;

  private long initializedToken = -1;
  private int lastRound = -1;

  /** The token of this worker's solver history after its last round ({@link SolverLineage}). */
  private long lineage;

  /** The newest round a task has claimed this worker for (set under the registry's key lock). */
  private volatile int claimedRound = -1;

  /** Reused every round: the weights copied out, and the averaging rule's buffers. */
  private float[] weightsOut;

  private final AveragingStrategy.SendBuffers sendBuffers = new AveragingStrategy.SendBuffers();

  Worker(Net net, List<String> devices, String engine) {
    this.engine = engine;
    this.net = net;
    this.devices = List.copyOf(devices);
    this.described = describe(engine, devices);
  }

  private static String describe(String engine, List<String> devices) {
    NetProvider provider = NetProvider.forEngine(engine);
    return devices.stream().map(provider::describeDevice).collect(Collectors.joining(","));
  }

  public Net net() {
    return net;
  }

  /** Marks this worker as taken by a task of {@code round}; returns it. */
  Worker claim(int round) {
    claimedRound = Math.max(claimedRound, round);
    return this;
  }

  int claimedRound() {
    return claimedRound;
  }

  /** The last round this worker completed its steps in (-1: none); read under its lock. */
  int lastRound() {
    return lastRound;
  }

  /** The token of the history this worker's last round ran on; read under its lock. */
  long lineage() {
    return lineage;
  }

  /** The devices the net runs on, one per solver ("cpu" or "gpu:N"). */
  List<String> devices() {
    return devices;
  }

  /**
   * Moves the worker to {@code moved}, a net of the same definition on other devices: the task of
   * this partition was given other GPUs than the round before. Weights and solver state come along,
   * so the solver carries on; the old net is closed.
   */
  void moveTo(Net moved, List<String> newDevices) {
    try {
      moved.setWeights(net.getWeights());
      if (net.hasSolverState()) {
        moved.setSolverState(net.getSolverState());
      }
    } catch (RuntimeException e) {
      moved.close();
      throw e;
    }
    LOG.info("Worker net '{}' moved from {} to {}", net.name(), devices, newDevices);
    net.close();
    net = moved;
    devices = List.copyOf(newDevices);
    described = describe(engine, devices);
  }

  /**
   * Runs one round: sets the round's weights (a worker of a rule that keeps its own weights keeps
   * them unless the trainer's weights were replaced, and takes its own from a checkpoint in the
   * first round after a resume), restores a checkpoint's solver state if one is given, trains the
   * round's tau steps (or tau seconds) on {@code shard}, and returns what it sends back.
   *
   * <p>The values sent live in arrays this worker reuses every round: Spark serialises a task's
   * result before the task ends, and the next round's task on this worker cannot start before the
   * driver has this round's result.
   *
   * @param builtNow the net was built for this task
   * @param centre the round's weights: {@link RoundOrders#centre}, or the executor's copy of them
   *     in an all-reduce round
   */
  PartitionResult train(
      WorkerPlan plan,
      RoundOrders orders,
      int partition,
      DataShard shard,
      boolean builtNow,
      float[] centre) {
    long t0 = System.nanoTime();
    int round = orders.round();
    // A net whose last round the driver did not take is stale: under an elastic rule it drops its
    // own weights, and its solver is reported restarted.
    boolean stale = !orders.previous().accepts(partition, lineage);
    if (stale) {
      initializedToken = -1;
    }
    float[] own = orders.workerWeightsOf(partition);
    if (own != null) {
      FlatWeights.set(net, plan.layout(), own);
      initializedToken = orders.weightsToken();
    } else if (!plan.averaging().workersKeepWeights()
        || initializedToken != orders.weightsToken()) {
      FlatWeights.set(net, plan.layout(), centre);
      initializedToken = orders.weightsToken();
    }
    SolverState state = orders.solverStateOf(partition);
    if (state != null) {
      net.setSolverState(state);
    }
    boolean continues = lastRound == round - 1 && !stale;
    SolverContinuity continuity =
        SolverContinuity.of(net.hasSolverState(), state != null, continues, round, builtNow);
    long history = continues ? lineage : SolverLineage.begin(state != null, builtNow, round);
    long t1 = System.nanoTime();
    ShardFeeder feeder =
        plan.blobs().shuffled(shard, plan.seed(), partition, orders.positionOf(partition));
    // On this task's thread: Caffe's generator is per thread (TaskSeeds).
    net.reseed(TaskSeeds.of(plan.seed(), orders.round(), partition));
    RoundSteps planned = orders.steps();
    if (planned.maxIterations() > 0) {
      net.setMaxIterations(planned.maxIterations());
    }
    Steps steps =
        planned.tau() > 0 ? steps(planned.tau(), feeder) : timedSteps(plan, planned, feeder, t1);
    long t2 = System.nanoTime();
    lastRound = round;
    lineage = SolverLineage.next(history, round, steps.count);
    Sent sent = send(plan, centre, steps.lossSum, feeder.examplesFed());
    long t3 = System.nanoTime();
    WorkerReport report =
        new WorkerReport(
            partition,
            feeder.examplesFed(),
            steps.count,
            steps.lossSum,
            new WorkerReport.WorkerTimings(millis(t1 - t0), millis(t2 - t1), millis(t3 - t2)),
            continuity == SolverContinuity.RESTARTED,
            sent.divergence(),
            described,
            lineage);
    return new PartitionResult(report, sent.values(), sent.packed(), sent.weight());
  }

  /** Steps run and the sum over examples of the training loss (NaN once it diverged). */
  private record Steps(long count, double lossSum) {}

  private Steps steps(int tau, ShardFeeder feeder) {
    float loss = net.train(tau, feeder);
    return new Steps(tau, (double) loss * feeder.examplesFed());
  }

  /**
   * Steps until {@code plan.tauSeconds()} have passed since {@code start} (at least one), or until
   * the round's step cap.
   */
  private Steps timedSteps(WorkerPlan plan, RoundSteps planned, ShardFeeder feeder, long start) {
    long deadline = start + (long) (plan.tauSeconds() * 1e9);
    double perStepSum = 0;
    long n = 0;
    do {
      perStepSum += net.train(1, feeder);
      n++;
    } while (System.nanoTime() < deadline
        && Double.isFinite(perStepSum)
        && planned.allowsAnother(n));
    return new Steps(n, perStepSum / n * feeder.examplesFed());
  }

  /**
   * Copies the weights out once; the averaging rule says what is sent and what the worker keeps.
   */
  private Sent send(WorkerPlan plan, float[] centre, double lossSum, long examples) {
    if (!Double.isFinite(lossSum)) {
      String what = net.lastDivergence();
      return Sent.diverged(what != null ? what : "loss " + (lossSum / examples));
    }
    WeightLayout layout = plan.layout();
    if (weightsOut == null || weightsOut.length != layout.size()) {
      weightsOut = new float[layout.size()];
    }
    float[] w = FlatWeights.get(net, layout, weightsOut);
    AveragingStrategy rule = plan.averaging();
    Sent sent = rule.send(w, centre, examples, layout, sendBuffers);
    if (sent.divergence() == null && rule.keep(w, centre)) {
      FlatWeights.set(net, layout, w);
    }
    return sent;
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
