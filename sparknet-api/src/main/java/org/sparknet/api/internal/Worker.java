package org.sparknet.api.internal;

import java.util.List;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Compression;
import org.sparknet.api.Net;
import org.sparknet.api.NetProvider;
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

  private final String engine;
  private Net net;
  private List<String> devices;

  /** Where the net runs as reports show it: "gpu:0 NVIDIA H100 80GB HBM3 (cuBLAS 13.0, ...)". */
  private String described;

  private long initializedToken = -1;
  private int lastRound = -1;

  /** The newest round a task has claimed this worker for (set under the registry's key lock). */
  private volatile int claimedRound = -1;

  /** Reused every round: the weights copied out, elastic offsets, compressed offsets. */
  private float[] weightsOut;

  private float[] offsetsOut;
  private short[] packedOut;

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
   * Runs one round: sets the round's weights (an elastic worker keeps its own unless the trainer's
   * weights were replaced), restores a checkpoint's solver state if one is given, trains the
   * round's tau steps (or tau seconds) on {@code shard}, and returns what it sends back.
   *
   * <p>The values sent live in arrays this worker reuses every round: Spark serialises a task's
   * result before the task ends, and the next round's task on this worker cannot start before the
   * driver has this round's result.
   *
   * @param builtNow the net was built for this task
   */
  PartitionResult train(
      WorkerPlan plan, RoundOrders orders, int partition, DataShard shard, boolean builtNow) {
    long t0 = System.nanoTime();
    float[] centre = orders.centre();
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
    // On this task's thread: Caffe's generator is per thread (TaskSeeds).
    net.reseed(TaskSeeds.of(plan.seed(), orders.round(), partition));
    RoundSteps planned = orders.steps();
    if (planned.maxIterations() > 0) {
      net.setMaxIterations(planned.maxIterations());
    }
    Steps steps =
        planned.tau() > 0 ? steps(planned.tau(), feeder) : timedSteps(plan, planned, feeder, t1);
    long t2 = System.nanoTime();
    lastRound = orders.round();
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
            sent.divergence,
            described);
    return new PartitionResult(report, sent.values, sent.packed, sent.weight);
  }

  /** Steps run and the sum over examples of the training loss (NaN once it diverged). */
  private record Steps(long count, double lossSum) {}

  /** What goes back: 32-bit values or 16-bit offsets and their weight, or a divergence. */
  private record Sent(float[] values, short[] packed, double weight, String divergence) {
    static Sent diverged(String what) {
      return new Sent(null, null, 0, what);
    }
  }

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
   * Copies the weights out once and prepares what is sent: plain averaging sends them with the
   * examples as weight; elastic averaging (EASGD's worker side) sends {@code d = w - c} and keeps
   * {@code w - alpha d}; compression sends {@code w - c} in 16 bits. Non-finite weights, or an
   * offset beyond FP16's range, are a divergence.
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
    Compression codec = plan.compression();
    float max;
    float[] values = null;
    short[] packed = null;
    if (codec != Compression.NONE) {
      if (packedOut == null || packedOut.length != w.length) {
        packedOut = new short[w.length];
      }
      packed = packedOut;
      max = codec.encodeOffsets(w, centre, packed, 0, w.length);
    } else if (plan.elastic()) {
      if (offsetsOut == null || offsetsOut.length != w.length) {
        offsetsOut = new float[w.length];
      }
      values = offsetsOut;
      max = offsets(w, centre, values);
    } else {
      values = w;
      max = FlatWeights.firstNonFinite(w) < 0 ? 0f : Float.NaN;
    }
    if (!(max <= Float.MAX_VALUE)) {
      int bad = FlatWeights.firstNonFinite(w);
      return Sent.diverged(
          bad >= 0 ? "weight " + layout.toCollection(w).firstNonFinite() : "offset " + max);
    }
    if (codec == Compression.FP16 && max > Compression.FP16_MAX) {
      return Sent.diverged(
          "offset "
              + max
              + " from the centre, beyond FP16's range (65504); use bf16 compression or a lower"
              + " learning rate");
    }
    if (plan.elastic() && plan.alpha() != 0f) {
      pull(w, centre, plan.alpha());
      FlatWeights.set(net, layout, w);
    }
    return new Sent(values, packed, plan.elastic() ? 1.0 : examples, null);
  }

  /** {@code d = w - c}; returns the largest magnitude (NaN if one is NaN). */
  private static float offsets(float[] w, float[] c, float[] d) {
    float max = 0f;
    for (int j = 0; j < w.length; j++) {
      float v = w[j] - c[j];
      d[j] = v;
      max = Math.max(max, Math.abs(v));
    }
    return max;
  }

  /** {@code w -= alpha (w - c)} in place: the elastic worker's pull towards the centre. */
  private static void pull(float[] w, float[] c, float alpha) {
    for (int j = 0; j < w.length; j++) {
      w[j] -= alpha * (w[j] - c[j]);
    }
  }

  private static long millis(long nanos) {
    return nanos / 1_000_000;
  }
}
