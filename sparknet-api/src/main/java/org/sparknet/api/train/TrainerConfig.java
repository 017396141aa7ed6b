package org.sparknet.api.train;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.internal.WeightLayout;
import org.sparknet.api.internal.WorkerPlan;

/**
 * Settings of a {@link SparkNetTrainer}, built with {@link #builder()}: {@code setX} for what is
 * required, {@code optX} for what is optional. Values are checked when they are set.
 */
public final class TrainerConfig implements Serializable {
  private static final long serialVersionUID = 1L;

  private final NetDefinition netDefinition;
  private final int tau;
  private final double tauSeconds;
  private final int workers;
  private final Averaging averaging;
  private final int warmStartSteps;
  private final long seed;
  private final String dataBlob;
  private final String labelBlob;
  private final String contBlob;
  private final int validationInterval;
  private final int maxRounds;
  private final double maxEpochs;
  private final long maxIterations;
  private final String targetMetric;
  private final double targetValue;
  private final int earlyStoppingPatience;
  private final String checkpointDir;
  private final int checkpointEvery;
  private final String metricsFile;
  private final boolean deterministic;
  private final int treeAggregateAbove;
  private final int groupSize;
  private final String initialWeights;

  private TrainerConfig(Builder b) {
    this.netDefinition = b.netDefinition;
    this.tau = b.tau;
    this.tauSeconds = b.tauSeconds;
    this.workers = b.workers;
    this.averaging = b.averaging;
    this.warmStartSteps = b.warmStartSteps;
    this.seed = b.seed == null ? b.netDefinition.seed() : b.seed;
    this.dataBlob = b.dataBlob;
    this.labelBlob = b.labelBlob;
    this.contBlob = b.contBlob;
    this.validationInterval = b.validationInterval;
    this.maxRounds = b.maxRounds;
    this.maxEpochs = b.maxEpochs;
    this.maxIterations = b.maxIterations;
    this.targetMetric = b.targetMetric;
    this.targetValue = b.targetValue;
    this.earlyStoppingPatience = b.earlyStoppingPatience;
    this.checkpointDir = b.checkpointDir;
    this.checkpointEvery = b.checkpointEvery;
    this.metricsFile = b.metricsFile;
    this.deterministic = b.deterministic;
    this.treeAggregateAbove = b.treeAggregateAbove;
    this.groupSize = b.groupSize;
    this.initialWeights = b.initialWeights;
  }

  public static Builder builder() {
    return new Builder();
  }

  public NetDefinition netDefinition() {
    return netDefinition;
  }

  /** Solver steps per worker per round, or 0 when the round is timed ({@link #tauSeconds()}). */
  public int tau() {
    return tau;
  }

  /** Seconds of training per worker per round, or 0 when tau counts steps. */
  public double tauSeconds() {
    return tauSeconds;
  }

  /** Number of workers (partitions), or 0 for Spark's default parallelism. */
  public int workers() {
    return workers;
  }

  public Averaging averaging() {
    return averaging;
  }

  public int warmStartSteps() {
    return warmStartSteps;
  }

  /** Seed of the data order and the warm-start sample (defaults to the definition's seed). */
  public long seed() {
    return seed;
  }

  public String dataBlob() {
    return dataBlob;
  }

  public String labelBlob() {
    return labelBlob;
  }

  /**
   * The sequence-continuation input of recurrent nets (Caffe's LSTM/RNN {@code cont}, default
   * "cont"). A net with this input is fed time-major: see {@link
   * org.sparknet.api.data.ShardFeeder}.
   */
  public String contBlob() {
    return contBlob;
  }

  /** The data, label and continuation blobs as one value. */
  public InputBlobs inputBlobs() {
    return new InputBlobs(dataBlob, labelBlob, contBlob);
  }

  /** Validate every this many rounds (0: only when {@link SparkNetTrainer#test()} is called). */
  public int validationInterval() {
    return validationInterval;
  }

  /** Total rounds after which {@link SparkNetTrainer#train()} stops (0: no limit). */
  public int maxRounds() {
    return maxRounds;
  }

  /**
   * Passes over the training data after which {@link SparkNetTrainer#train()} stops (0: no limit),
   * checked after each round against {@link RoundMetrics#epoch()}.
   */
  public double maxEpochs() {
    return maxEpochs;
  }

  /** Solver iterations after which {@link SparkNetTrainer#train()} stops (0: no limit). */
  public long maxIterations() {
    return maxIterations;
  }

  public Optional<String> targetMetric() {
    return Optional.ofNullable(targetMetric);
  }

  public double targetValue() {
    return targetValue;
  }

  /** Validations without improvement after which training stops (0: never). */
  public int earlyStoppingPatience() {
    return earlyStoppingPatience;
  }

  public Optional<String> checkpointDir() {
    return Optional.ofNullable(checkpointDir);
  }

  /**
   * A weights file (URI) whose layers replace the net's initial weights by layer name, for
   * fine-tuning; see {@link Builder#optInitialWeights}.
   */
  public Optional<String> initialWeights() {
    return Optional.ofNullable(initialWeights);
  }

  public int checkpointEvery() {
    return checkpointEvery;
  }

  public Optional<String> metricsFile() {
    return Optional.ofNullable(metricsFile);
  }

  public boolean deterministic() {
    return deterministic;
  }

  /**
   * Above this many partitions the round's results are combined with {@code treeAggregate}; at or
   * below it they come back to the driver and are summed there in partition order.
   */
  public int treeAggregateAbove() {
    return treeAggregateAbove;
  }

  /**
   * Solvers per worker (1: a plain net). A worker of a group of {@code k} runs {@code k} solvers on
   * {@code k} threads that average after every step ({@link org.sparknet.api.SolverGroup}); workers
   * average every tau steps as usual.
   */
  public int groupSize() {
    return groupSize;
  }

  /** What the workers of trainer {@code trainerId} run, with weights of {@code layout}. */
  WorkerPlan workerPlan(String trainerId, WeightLayout layout) {
    WorkerPlan.Builder b =
        WorkerPlan.builder()
            .trainerId(trainerId)
            .definition(netDefinition)
            .layout(layout)
            .tau(tau)
            .tauSeconds(tauSeconds)
            .seed(seed)
            .blobs(inputBlobs())
            .groupSize(groupSize);
    if (averaging.isElastic()) {
      b.elastic(averaging.alpha());
    }
    return b.build();
  }

  /**
   * Whether a smaller value of {@code metric} is better: names containing "loss" or "error" are
   * minimised, everything else (accuracy) maximised.
   */
  public static boolean lowerIsBetter(String metric) {
    String m = metric.toLowerCase(java.util.Locale.ROOT);
    return m.contains("loss") || m.contains("error");
  }

  @Override
  public String toString() {
    return "TrainerConfig{engine "
        + netDefinition.engine()
        + ", "
        + (tau > 0 ? "tau " + tau + " steps" : "tau " + tauSeconds + " s")
        + ", workers "
        + (workers == 0 ? "default" : workers)
        + ", averaging "
        + averaging
        + ", seed "
        + seed
        + (groupSize > 1 ? ", groups of " + groupSize : "")
        + (deterministic ? ", deterministic" : "")
        + "}";
  }

  /** Builds a {@link TrainerConfig}. */
  public static final class Builder {
    private NetDefinition netDefinition;
    private int tau = 50;
    private double tauSeconds;
    private int workers;
    private Averaging averaging = Averaging.PLAIN;
    private int warmStartSteps;
    private Long seed;
    private String dataBlob = "data";
    private String labelBlob = "label";
    private String contBlob = "cont";
    private int validationInterval;
    private int maxRounds;
    private double maxEpochs;
    private long maxIterations;
    private String targetMetric;
    private double targetValue;
    private int earlyStoppingPatience;
    private String checkpointDir;
    private int checkpointEvery = 1;
    private String metricsFile;
    private boolean deterministic;
    private int treeAggregateAbove = 16;
    private int groupSize = 1;
    private String initialWeights;

    private Builder() {}

    /** The net to train (required). */
    public Builder setNetDefinition(NetDefinition definition) {
      this.netDefinition = Objects.requireNonNull(definition, "definition");
      return this;
    }

    /** Solver steps each worker runs per round (default 50). */
    public Builder optTau(int steps) {
      positive(steps, "tau (steps per round)");
      this.tau = steps;
      this.tauSeconds = 0;
      return this;
    }

    /** Each worker trains for this many seconds per round instead of a fixed number of steps. */
    public Builder optTauSeconds(double seconds) {
      if (!(seconds > 0) || Double.isInfinite(seconds)) {
        throw new IllegalArgumentException(
            "tauSeconds must be a positive number of seconds but was " + seconds);
      }
      this.tauSeconds = seconds;
      this.tau = 0;
      return this;
    }

    /** Number of workers: the training data is repartitioned to this many partitions. */
    public Builder optWorkers(int workers) {
      positive(workers, "workers");
      this.workers = workers;
      return this;
    }

    public Builder optAveraging(Averaging averaging) {
      this.averaging = Objects.requireNonNull(averaging, "averaging");
      return this;
    }

    /** Steps a net on the driver trains on a sample of the data before the first round. */
    public Builder optWarmStartSteps(int steps) {
      nonNegative(steps, "warmStartSteps");
      this.warmStartSteps = steps;
      return this;
    }

    public Builder optSeed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder optDataBlob(String blob) {
      this.dataBlob = name(blob, "data blob");
      return this;
    }

    public Builder optLabelBlob(String blob) {
      this.labelBlob = name(blob, "label blob");
      return this;
    }

    /** The sequence-continuation input of a recurrent net (default "cont"). */
    public Builder optContBlob(String blob) {
      this.contBlob = name(blob, "cont blob");
      return this;
    }

    /** Validate over the whole validation set every {@code rounds} rounds. */
    public Builder optValidationInterval(int rounds) {
      positive(rounds, "validationInterval (rounds)");
      this.validationInterval = rounds;
      return this;
    }

    public Builder optMaxRounds(int rounds) {
      positive(rounds, "maxRounds");
      this.maxRounds = rounds;
      return this;
    }

    /** Stop once the workers have passed over the training data this many times (may be 0.5). */
    public Builder optMaxEpochs(double epochs) {
      if (!(epochs > 0) || Double.isInfinite(epochs)) {
        throw new IllegalArgumentException("maxEpochs must be a positive number but was " + epochs);
      }
      this.maxEpochs = epochs;
      return this;
    }

    public Builder optMaxIterations(long iterations) {
      if (iterations <= 0) {
        throw new IllegalArgumentException("maxIterations must be > 0 but was " + iterations);
      }
      this.maxIterations = iterations;
      return this;
    }

    /**
     * Stop once the validation metric {@code name} reaches {@code value} (at most for names with
     * "loss" or "error", at least for others). Needs validation data and a validation interval.
     */
    public Builder optTargetMetric(String name, double value) {
      this.targetMetric = name(name, "target metric");
      if (!Double.isFinite(value)) {
        throw new IllegalArgumentException("Target value must be finite but was " + value);
      }
      this.targetValue = value;
      return this;
    }

    /**
     * Stop after {@code validations} validations in a row without improvement of the target metric
     * (or of "loss" when no target metric is set).
     */
    public Builder optEarlyStoppingPatience(int validations) {
      positive(validations, "earlyStoppingPatience (validations)");
      this.earlyStoppingPatience = validations;
      return this;
    }

    /** A Hadoop path (file:, hdfs:, s3a: ...) for checkpoints; resumes from it when present. */
    public Builder optCheckpointDir(String hadoopPath) {
      this.checkpointDir = name(hadoopPath, "checkpoint directory");
      return this;
    }

    /**
     * Start from the layers of a weights file (any Hadoop URI; for Caffe a {@code .caffemodel}),
     * copied by layer name as {@code caffe train --weights} does: layers the file lacks keep the
     * net's initial weights, layers only the file has are ignored, a layer of another shape is an
     * error naming it ({@link org.sparknet.api.WeightCollection#copyByLayerName}). A checkpoint to
     * resume from wins over this file.
     */
    public Builder optInitialWeights(String uri) {
      this.initialWeights = name(uri, "initial weights file");
      return this;
    }

    public Builder optCheckpointEvery(int rounds) {
      positive(rounds, "checkpointEvery (rounds)");
      this.checkpointEvery = rounds;
      return this;
    }

    /** A local file that receives one JSON line per round (appended). */
    public Builder optMetricsFile(String path) {
      this.metricsFile = name(path, "metrics file");
      return this;
    }

    /**
     * Reproducible training: seeded data order, results summed in partition order; rejects
     * time-based tau. Two runs with the same data and partitioning give identical weights.
     */
    public Builder optDeterministic(boolean deterministic) {
      this.deterministic = deterministic;
      return this;
    }

    /** Use treeAggregate above this many partitions (default 16). */
    public Builder optTreeAggregateAbove(int partitions) {
      nonNegative(partitions, "treeAggregateAbove");
      this.treeAggregateAbove = partitions;
      return this;
    }

    /**
     * Hybrid training (ShmCaffe-H, SINGA's worker groups): each worker runs a {@link
     * org.sparknet.api.SolverGroup} of {@code size} solvers on {@code size} threads that average
     * their weights after every step, each step taking {@code size} batches; the workers average
     * every tau steps as usual. Give each executor as many cores as the group has solvers ({@code
     * spark.task.cpus}). Default 1.
     */
    public Builder optGroupSize(int size) {
      positive(size, "groupSize (solvers per worker)");
      this.groupSize = size;
      return this;
    }

    public TrainerConfig build() {
      if (netDefinition == null) {
        throw new IllegalStateException(
            "TrainerConfig needs a net definition: call setNetDefinition(...) before build()");
      }
      if (deterministic && tauSeconds > 0) {
        throw new IllegalArgumentException(
            "Deterministic training needs tau in steps (optTau), not seconds (optTauSeconds)");
      }
      if (targetMetric != null && validationInterval == 0) {
        throw new IllegalArgumentException(
            "Target metric '" + targetMetric + "' needs optValidationInterval(rounds)");
      }
      if (earlyStoppingPatience > 0 && validationInterval == 0) {
        throw new IllegalArgumentException(
            "Early stopping needs optValidationInterval(rounds) to measure progress");
      }
      return new TrainerConfig(this);
    }

    private static void positive(long v, String what) {
      if (v <= 0) {
        throw new IllegalArgumentException(what + " must be > 0 but was " + v);
      }
    }

    private static void nonNegative(long v, String what) {
      if (v < 0) {
        throw new IllegalArgumentException(what + " must be >= 0 but was " + v);
      }
    }

    private static String name(String s, String what) {
      if (s == null || s.isBlank()) {
        throw new IllegalArgumentException("The " + what + " must not be empty");
      }
      return s;
    }
  }
}
