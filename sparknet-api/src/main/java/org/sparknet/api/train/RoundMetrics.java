package org.sparknet.api.train;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.Serializable;
import java.time.Instant;
import java.time.format.DateTimeParseException;
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
  private static final ObjectMapper JSON = new ObjectMapper();

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
    ObjectNode o = JSON.createObjectNode();
    o.put("round", round);
    o.put("timestamp", Instant.ofEpochMilli(timestampMillis).toString());
    o.put("iteration", iteration);
    o.put("steps", steps);
    o.put("tau", tau);
    o.put("examples", examples);
    putNumber(o, "epoch", epoch);
    putNumber(o, "meanLoss", meanLoss);
    putNumber(o, "learningRate", learningRate);
    putNumber(o, "imagesPerSecond", imagesPerSecond());
    o.put("computeMillis", timings.computeMillis());
    o.put("broadcastMillis", timings.broadcastMillis());
    o.put("aggregateMillis", timings.aggregateMillis());
    o.put("schedulingMillis", timings.schedulingMillis());
    o.put("wallMillis", timings.wallMillis());
    o.put("validationMillis", timings.validationMillis());
    var d = o.putArray("devices");
    devices.forEach(d::add);
    if (!asyncWorkers.isEmpty()) {
      var a = o.putArray("asyncWorkers");
      for (WorkerPushes w : asyncWorkers) {
        ObjectNode n = a.addObject();
        n.put("partition", w.partition());
        n.put("pushes", w.pushes());
        n.put("dropped", w.dropped());
        n.put("steps", w.steps());
        n.put("examples", w.examples());
        putNumber(n, "meanStaleness", w.meanStaleness());
        n.put("maxStaleness", w.maxStaleness());
        n.put("lostSteps", w.lostSteps());
      }
    }
    ObjectNode v = o.putObject("validation");
    new TreeMap<>(validation).forEach((k, x) -> putNumber(v, k, x));
    if (!testNets.isEmpty()) {
      var nets = o.putArray("testNets");
      for (TestNetResult t : testNets) {
        ObjectNode n = nets.addObject();
        n.put("net", t.net());
        var st = n.putArray("stages");
        t.stages().forEach(st::add);
        ObjectNode out = n.putObject("outputs");
        new TreeMap<>(t.outputs()).forEach((k, x) -> putNumber(out, k, x));
      }
    }
    try {
      return JSON.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("Cannot write round " + round + " as JSON", e);
    }
  }

  /**
   * Reads a line written by {@link #toJson()} back, for a saved model's history; a number written
   * as null (it was not finite) reads as NaN.
   *
   * @throws IllegalArgumentException quoting the line when it is not such JSON
   */
  public static RoundMetrics fromJson(String line) {
    JsonNode o;
    try {
      o = JSON.readTree(line);
    } catch (JsonProcessingException e) {
      o = null;
    }
    if (o == null || !o.isObject() || !o.path("round").isInt() || !o.hasNonNull("timestamp")) {
      throw new IllegalArgumentException(
          "Not a round's metrics (RoundMetrics.toJson): '"
              + (line.length() > 200 ? line.substring(0, 200) + "..." : line)
              + "'");
    }
    Map<String, Float> validation = new TreeMap<>();
    o.path("validation")
        .fields()
        .forEachRemaining(e -> validation.put(e.getKey(), (float) number(e.getValue())));
    List<TestNetResult> testNets = new ArrayList<>();
    for (JsonNode n : o.path("testNets")) {
      List<String> stages = new ArrayList<>();
      n.path("stages").forEach(st -> stages.add(st.asText()));
      Map<String, Float> outputs = new TreeMap<>();
      n.path("outputs")
          .fields()
          .forEachRemaining(e -> outputs.put(e.getKey(), (float) number(e.getValue())));
      testNets.add(new TestNetResult(n.path("net").asInt(), stages, outputs));
    }
    List<String> devices = new ArrayList<>();
    for (JsonNode d : o.path("devices")) {
      devices.add(d.isNull() ? null : d.asText());
    }
    long timestamp;
    try {
      timestamp = Instant.parse(o.get("timestamp").asText()).toEpochMilli();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "Round " + o.get("round").asInt() + " has a bad timestamp: " + e.getMessage(), e);
    }
    return builder()
        .round(o.get("round").asInt())
        .timestampMillis(timestamp)
        .iteration(o.path("iteration").asLong())
        .steps(o.path("steps").asLong())
        .tau(o.path("tau").asInt())
        .examples(o.path("examples").asLong())
        .epoch(number(o.path("epoch")))
        .meanLoss(number(o.path("meanLoss")))
        .learningRate(number(o.path("learningRate")))
        .devices(devices)
        .validation(validation)
        .testNets(testNets)
        .timings(
            new Timings(
                o.path("computeMillis").asLong(),
                o.path("broadcastMillis").asLong(),
                o.path("aggregateMillis").asLong(),
                o.path("schedulingMillis").asLong(),
                o.path("wallMillis").asLong(),
                o.path("validationMillis").asLong()))
        .build();
  }

  private static double number(JsonNode n) {
    return n.isNumber() ? n.asDouble() : Double.NaN;
  }

  private static void putNumber(ObjectNode o, String key, double v) {
    if (Double.isFinite(v)) {
      o.put(key, v);
    } else {
      o.putNull(key);
    }
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
