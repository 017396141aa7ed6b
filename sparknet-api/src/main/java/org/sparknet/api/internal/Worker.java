package org.sparknet.api.internal;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.SolverState;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;

/**
 * One partition's worker on an executor: its net, which lives across rounds (and with it the
 * solver's momentum and iteration), and what the trainer must know about it. Held by {@link
 * WorkerRegistry}; a worker is used by one task at a time (callers synchronise on it).
 */
public final class Worker {
  private static final Logger LOG = LoggerFactory.getLogger(Worker.class);

  private Net net;
  private List<String> devices;
  private long initializedToken = -1;
  private int lastRound = -1;

  Worker(Net net, List<String> devices) {
    this.net = net;
    this.devices = List.copyOf(devices);
  }

  public Net net() {
    return net;
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
  }

  /**
   * Runs one round: sets the round's weights (an elastic worker keeps its own unless the trainer's
   * weights were replaced), restores a checkpoint's solver state if one is given, trains tau steps
   * (or tau seconds) on {@code shard}, and returns what it sends back.
   *
   * @param builtNow the net was built for this task
   */
  PartitionResult train(
      WorkerPlan plan, RoundOrders orders, int partition, DataShard shard, boolean builtNow) {
    long t0 = System.nanoTime();
    float[] centre = orders.weights().value();
    if (!plan.elastic() || initializedToken != orders.weightsToken()) {
      FlatWeights.set(net, plan.layout(), centre);
      initializedToken = orders.weightsToken();
    }
    SolverState state = orders.solverStateOf(partition);
    if (state != null) {
      net.setSolverState(state);
    }
    SolverContinuity continuity =
        SolverContinuity.of(
            net.hasSolverState(), state != null, lastRound, orders.round(), builtNow);
    long t1 = System.nanoTime();
    ShardFeeder feeder =
        plan.blobs().shuffled(shard, plan.seed(), partition, orders.positionOf(partition));
    Steps steps = plan.tau() > 0 ? steps(plan.tau(), feeder) : timedSteps(plan, feeder, t1);
    long t2 = System.nanoTime();
    lastRound = orders.round();
    float[] w = FlatWeights.get(net, plan.layout());
    String divergence = divergence(steps.lossSum, feeder.examplesFed(), w, plan.layout());
    float[] values = w;
    double weight = feeder.examplesFed();
    if (divergence == null && plan.elastic()) {
      values = elasticDelta(plan, w, centre);
      weight = 1.0;
    }
    long t3 = System.nanoTime();
    WorkerReport report =
        new WorkerReport(
            partition,
            feeder.examplesFed(),
            steps.count,
            steps.lossSum,
            new WorkerReport.WorkerTimings(millis(t1 - t0), millis(t2 - t1), millis(t3 - t2)),
            continuity == SolverContinuity.RESTARTED,
            divergence,
            String.join(",", devices));
    return new PartitionResult(report, divergence == null ? values : null, weight);
  }

  /** Steps run and the sum over examples of the training loss (NaN once it diverged). */
  private record Steps(long count, double lossSum) {}

  private Steps steps(int tau, ShardFeeder feeder) {
    float loss = net.train(tau, feeder);
    return new Steps(tau, (double) loss * feeder.examplesFed());
  }

  /** Steps until {@code plan.tauSeconds()} have passed since {@code start} (at least one). */
  private Steps timedSteps(WorkerPlan plan, ShardFeeder feeder, long start) {
    long deadline = start + (long) (plan.tauSeconds() * 1e9);
    double perStepSum = 0;
    long n = 0;
    do {
      perStepSum += net.train(1, feeder);
      n++;
    } while (System.nanoTime() < deadline && Double.isFinite(perStepSum));
    return new Steps(n, perStepSum / n * feeder.examplesFed());
  }

  private static String divergence(double lossSum, long examples, float[] w, WeightLayout layout) {
    if (!Double.isFinite(lossSum)) {
      return "loss " + (lossSum / examples);
    }
    if (FlatWeights.firstNonFinite(w) >= 0) {
      return "weight " + layout.toCollection(w).firstNonFinite();
    }
    return null;
  }

  /**
   * EASGD's worker side: {@code d = w_i - c} goes back to the driver, and the worker keeps {@code
   * w_i - alpha d}.
   */
  private float[] elasticDelta(WorkerPlan plan, float[] w, float[] centre) {
    float[] d = new float[w.length];
    for (int j = 0; j < w.length; j++) {
      d[j] = w[j] - centre[j];
    }
    if (plan.alpha() != 0f) {
      float[] pulled = new float[w.length];
      for (int j = 0; j < w.length; j++) {
        pulled[j] = w[j] - plan.alpha() * d[j];
      }
      FlatWeights.set(net, plan.layout(), pulled);
    }
    return d;
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
