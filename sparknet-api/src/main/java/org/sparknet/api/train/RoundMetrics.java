package org.sparknet.api.train;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one training round did and where its time went. Built by the trainer; read through the
 * accessors, {@link #summary()} (one line for people) and {@link #toJson()} (one line of the
 * metrics file).
 */
public final class RoundMetrics implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int round;
  private final long iteration;
  private final long steps;
  private final int tau;
  private final long examples;
  private final double epoch;
  private final double meanLoss;
  private final double learningRate;
  private final Map<String, Float> validation;
  private final List<TestNetResult> testNets;
  private final Timings timings;
  private final long timestampMillis;
  private final List<String> devices;
  private final List<WorkerPushes> asyncWorkers;

  /**
   * Where the round's time went, in milliseconds.
   *
   * @param computeMillis the slowest worker's solver time (the critical path)
   * @param broadcastMillis driver broadcast, plus the slowest worker's time to read it, build its
   *     net the first time and set the weights
   * @param aggregateMillis the slowest worker's time to copy its weights out, plus the driver's
   *     time to combine the results
   * @param schedulingMillis wall time minus the three above: task launch, serialization, transfer
   * @param wallMillis the round's wall time on the driver, validation excluded
   * @param validationMillis time spent validating after the round (0 when it did not)
   */
  public record Timings(
      long computeMillis,
      long broadcastMillis,
      long aggregateMillis,
      long schedulingMillis,
      long wallMillis,
      long validationMillis)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private RoundMetrics(Builder b) {
    this.round = b.round;
    this.iteration = b.iteration;
    this.steps = b.steps;
    this.tau = b.tau;
    this.examples = b.examples;
    this.epoch = b.epoch;
    this.meanLoss = b.meanLoss;
    this.learningRate = b.learningRate;
    this.validation = Collections.unmodifiableMap(new LinkedHashMap<>(b.validation)); // net order
    this.testNets = List.copyOf(b.testNets);
    this.timings = b.timings;
    this.timestampMillis = b.timestampMillis;
    this.devices = Collections.unmodifiableList(new ArrayList<>(b.devices));
    this.asyncWorkers = List.copyOf(b.asyncWorkers);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** 1-based round number (continues across a resume from a checkpoint). */
  public int round() {
    return round;
  }

  /** Solver steps each worker has run so far (the most of any worker for timed rounds). */
  public long iteration() {
    return iteration;
  }

  /** Solver steps in this round (tau; for timed rounds, the most of any worker). */
  public long steps() {
    return steps;
  }

  /**
   * The tau this round ran with: the configured one, or the one adaptive tau chose ({@link
   * TrainerConfig#adaptiveTau()}); 0 for timed rounds.
   */
  public int tau() {
    return tau;
  }

  /** Examples the workers trained on in this round (batch rows, wrapped ones included). */
  public long examples() {
    return examples;
  }

  /** Passes over the training data so far (examples fed by all workers / training examples). */
  public double epoch() {
    return epoch;
  }

  /** Example-weighted mean of the workers' training loss over the round. */
  public double meanLoss() {
    return meanLoss;
  }

  /**
   * The learning rate of the round's last solver step, as the solver's policy gives it (Caffe's
   * {@code lr_policy} at that iteration, before {@code lr_mult}); NaN when the engine does not say.
   */
  public double learningRate() {
    return learningRate;
  }

  /**
   * Mean of each test output of test net #0 over its validation set when this round validated, else
   * empty.
   */
  public Map<String, Float> validation() {
    return validation;
  }

  /**
   * Every test net's results, by net number, when this round validated a net with more than one
   * test net (Caffe's {@code test_state}s); else empty, and {@link #validation()} holds net #0's.
   */
  public List<TestNetResult> testNets() {
    return testNets;
  }

  public Timings timings() {
    return timings;
  }

  /** When the round ended, in milliseconds since the epoch. */
  public long timestampMillis() {
    return timestampMillis;
  }

  /**
   * Where each partition's worker ran in this round, by partition: "cpu", "gpu:N", or a
   * comma-separated list for a group of solvers (null for a partition without data).
   */
  public List<String> devices() {
    return devices;
  }

  /** Examples per second of wall time. */
  public double imagesPerSecond() {
    return examples * 1000.0 / Math.max(1, timings.wallMillis());
  }

  public long computeMillis() {
    return timings.computeMillis();
  }

  public long broadcastMillis() {
    return timings.broadcastMillis();
  }

  public long aggregateMillis() {
    return timings.aggregateMillis();
  }

  public long schedulingMillis() {
    return timings.schedulingMillis();
  }

  public long wallMillis() {
    return timings.wallMillis();
  }

  public long validationMillis() {
    return timings.validationMillis();
  }

  /** Each worker's pushes in an asynchronous round, by partition (empty for synchronous ones). */
  public List<WorkerPushes> asyncWorkers() {
    return asyncWorkers;
  }

  /** The round as one line of JSON (no newline). */
  public String toJson() {
    return RoundMetricsJson.write(this);
  }

  /**
   * Reads a line written by {@link #toJson()} back, for a saved model's history; a number written
   * as null (it was not finite) reads as NaN.
   *
   * @throws IllegalArgumentException quoting the line when it is not such JSON
   */
  public static RoundMetrics fromJson(String line) {
    return RoundMetricsJson.read(line);
  }

  /** A one-line human summary, as the trainer logs it. */
  public String summary() {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "round %d it %d%s loss %.4f %.0f img/s (compute %d ms, broadcast %d ms,"
                    + " aggregate %d ms, scheduling %d ms)",
                round,
                iteration,
                tau > 0 ? " tau " + tau : "",
                meanLoss,
                imagesPerSecond(),
                timings.computeMillis(),
                timings.broadcastMillis(),
                timings.aggregateMillis(),
                timings.schedulingMillis()));
    if (testNets.isEmpty()) {
      for (Map.Entry<String, Float> e : new TreeMap<>(validation).entrySet()) {
        sb.append(String.format(Locale.ROOT, " val %s %.4f", e.getKey(), e.getValue()));
      }
    }
    for (TestNetResult t : testNets) {
      sb.append(" val ").append(t.describe());
      for (Map.Entry<String, Float> e : new TreeMap<>(t.outputs()).entrySet()) {
        sb.append(String.format(Locale.ROOT, " %s %.4f", e.getKey(), e.getValue()));
      }
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return summary();
  }

  /** Builds {@link RoundMetrics}; every value is named. */
  public static final class Builder {
    private int round;
    private long iteration;
    private long steps;
    private int tau;
    private long examples;
    private double epoch;
    private double meanLoss;
    private double learningRate = Double.NaN;
    private Map<String, Float> validation = Map.of();
    private List<TestNetResult> testNets = List.of();
    private Timings timings = new Timings(0, 0, 0, 0, 0, 0);
    private long timestampMillis = System.currentTimeMillis();
    private List<String> devices = List.of();
    private List<WorkerPushes> asyncWorkers = List.of();

    private Builder() {}

    public Builder asyncWorkers(List<WorkerPushes> w) {
      this.asyncWorkers = w;
      return this;
    }

    public Builder devices(List<String> d) {
      this.devices = d;
      return this;
    }

    public Builder round(int r) {
      this.round = r;
      return this;
    }

    public Builder iteration(long it) {
      this.iteration = it;
      return this;
    }

    public Builder steps(long s) {
      this.steps = s;
      return this;
    }

    public Builder tau(int t) {
      this.tau = t;
      return this;
    }

    public Builder examples(long n) {
      this.examples = n;
      return this;
    }

    public Builder epoch(double e) {
      this.epoch = e;
      return this;
    }

    public Builder meanLoss(double loss) {
      this.meanLoss = loss;
      return this;
    }

    public Builder learningRate(double rate) {
      this.learningRate = rate;
      return this;
    }

    public Builder validation(Map<String, Float> v) {
      this.validation = v;
      return this;
    }

    /** Every test net's results, when the net has more than one test net. */
    public Builder testNets(List<TestNetResult> t) {
      this.testNets = t;
      return this;
    }

    public Builder timings(Timings t) {
      this.timings = t;
      return this;
    }

    public Builder timestampMillis(long t) {
      this.timestampMillis = t;
      return this;
    }

    public RoundMetrics build() {
      return new RoundMetrics(this);
    }
  }
}
