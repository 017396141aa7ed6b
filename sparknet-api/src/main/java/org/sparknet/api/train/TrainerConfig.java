package org.sparknet.api.train;

import static org.sparknet.api.train.Checks.finite;
import static org.sparknet.api.train.Checks.fraction;
import static org.sparknet.api.train.Checks.name;
import static org.sparknet.api.train.Checks.nonNegative;
import static org.sparknet.api.train.Checks.positive;
import static org.sparknet.api.train.Checks.positiveNumber;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.device.GpuSharing;

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
  private final TimeBudget timeBudget;
  private final String targetMetric;
  private final double targetValue;
  private final int earlyStoppingPatience;
  private final String checkpointDir;
  private final int checkpointEvery;
  private final String metricsFile;
  private final boolean deterministic;
  private final int treeAggregateAbove;
  private final int groupSize;
  private final GpuSharing gpuSharing;
  private final String initialWeights;
  private final Compression compression;
  private final double maxOverhead;
  private final int tauMax;

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
    this.timeBudget = b.timeBudget;
    this.targetMetric = b.targetMetric;
    this.targetValue = b.targetValue;
    this.earlyStoppingPatience = b.earlyStoppingPatience;
    this.checkpointDir = b.checkpointDir;
    this.checkpointEvery = b.checkpointEvery;
    this.metricsFile = b.metricsFile;
    this.deterministic = b.deterministic;
    this.treeAggregateAbove = b.treeAggregateAbove;
    this.groupSize = b.groupSize;
    this.gpuSharing = b.gpuSharing;
    this.initialWeights = b.initialWeights;
    this.compression = b.compression;
    this.maxOverhead = b.maxOverhead;
    this.tauMax = b.tauMax;
  }

  public static Builder builder() {
    return new Builder();
  }

  public NetDefinition netDefinition() {
    return netDefinition;
  }

  /** Steps per worker per round (the first round's when tau adapts), or 0 for timed rounds. */
  public int tau() {
    return tau;
  }

  /** Whether tau adapts from round to round ({@link Builder#optAdaptiveTau}). */
  public boolean adaptiveTau() {
    return maxOverhead > 0;
  }

  /** The share of a round adaptive tau keeps outside the solver steps at most (0: fixed tau). */
  public double maxOverhead() {
    return maxOverhead;
  }

  /** The largest tau adaptive tau chooses (the fixed tau otherwise). */
  public int tauMax() {
    return adaptiveTau() ? tauMax : tau;
  }

  /** How the workers send their weights back ({@link Builder#optCompress}). */
  public Compression compression() {
    return compression;
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

  /** The sequence-continuation input of recurrent nets ({@link Builder#optContBlob}). */
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

  /** Passes over the data after which {@link SparkNetTrainer#train()} stops (0: no limit). */
  public double maxEpochs() {
    return maxEpochs;
  }

  /** Solver iterations after which {@link SparkNetTrainer#train()} stops (0: no limit). */
  public long maxIterations() {
    return maxIterations;
  }

  public Optional<TimeBudget> timeBudget() {
    return Optional.ofNullable(timeBudget);
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

  /** A weights file to start from, by layer name ({@link Builder#optInitialWeights}). */
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
   * Above this many partitions results are combined by {@code treeAggregate}, else on the driver.
   */
  public int treeAggregateAbove() {
    return treeAggregateAbove;
  }

  /** Solvers per worker (1: a plain net; {@link Builder#optGroupSize}). */
  public int groupSize() {
    return groupSize;
  }

  /**
   * How many workers share each GPU where Spark assigns none ({@link Builder#optWorkersPerGpu}).
   */
  public GpuSharing gpuSharing() {
    return gpuSharing;
  }

  /** One line: engine, tau schedule, workers, averaging, seed and the settings not at default. */
  @Override
  public String toString() {
    return ConfigSummary.of(this);
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
    private TimeBudget timeBudget;
    private String targetMetric;
    private double targetValue;
    private int earlyStoppingPatience;
    private String checkpointDir;
    private int checkpointEvery = 1;
    private String metricsFile;
    private boolean deterministic;
    private int treeAggregateAbove = 16;
    private int groupSize = 1;
    private GpuSharing gpuSharing = GpuSharing.DEFAULT;
    private String initialWeights;
    private Compression compression = Compression.NONE;
    private double maxOverhead;
    private int tauMax;

    private Builder() {}

    /** The net to train (required). */
    public Builder setNetDefinition(NetDefinition definition) {
      this.netDefinition = Objects.requireNonNull(definition, "definition");
      return this;
    }

    /** Solver steps each worker runs per round (default 50). */
    public Builder optTau(int steps) {
      this.tau = positive(steps, "tau (steps per round)");
      this.tauSeconds = 0;
      return this;
    }

    /** Each worker trains for this many seconds per round instead of a fixed number of steps. */
    public Builder optTauSeconds(double seconds) {
      this.tauSeconds = positiveNumber(seconds, "tauSeconds (seconds)");
      this.tau = 0;
      this.maxOverhead = 0;
      return this;
    }

    /**
     * Adaptive tau: each round's tau keeps the round's time outside the solver steps (broadcast,
     * aggregation, scheduling) at most {@code maxOverhead} of it, from the rounds measured so far
     * (see TauSchedule); at most {@code tauMax}, starting at {@link #optTau}'s steps, recorded in
     * {@link RoundMetrics#tau()}. Not with timed rounds or deterministic training.
     *
     * @param maxOverhead a fraction in (0, 1), for example 0.05
     */
    public Builder optAdaptiveTau(double maxOverhead, int tauMax) {
      fraction(maxOverhead, "maxOverhead");
      this.tauMax = positive(tauMax, "tauMax");
      this.maxOverhead = maxOverhead;
      if (tau == 0) {
        tau = 50;
        tauSeconds = 0;
      }
      return this;
    }

    /** Workers send their offsets from the round's centre in 16 bits (default: NONE, 32 bits). */
    public Builder optCompress(Compression c) {
      this.compression = Objects.requireNonNull(c, "compression");
      return this;
    }

    /** Number of workers: the training data is repartitioned to this many partitions. */
    public Builder optWorkers(int workers) {
      this.workers = positive(workers, "workers");
      return this;
    }

    public Builder optAveraging(Averaging averaging) {
      this.averaging = Objects.requireNonNull(averaging, "averaging");
      return this;
    }

    /** Steps a net on the driver trains on a sample of the data before the first round. */
    public Builder optWarmStartSteps(int steps) {
      this.warmStartSteps = nonNegative(steps, "warmStartSteps");
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
      this.validationInterval = positive(rounds, "validationInterval (rounds)");
      return this;
    }

    public Builder optMaxRounds(int rounds) {
      this.maxRounds = positive(rounds, "maxRounds");
      return this;
    }

    /** Stop once the workers have passed over the training data this many times (may be 0.5). */
    public Builder optMaxEpochs(double epochs) {
      this.maxEpochs = positiveNumber(epochs, "maxEpochs");
      return this;
    }

    public Builder optMaxIterations(long iterations) {
      this.maxIterations = positive(iterations, "maxIterations");
      return this;
    }

    /** Ends the run inside {@code budget}, as {@link TimeBudget} plans; other limits apply too. */
    public Builder optTimeBudget(TimeBudget budget) {
      this.timeBudget = Objects.requireNonNull(budget, "budget");
      return this;
    }

    /**
     * Stop once the validation metric {@code name} reaches {@code value} (at most for names with
     * "loss" or "error", at least for others). Needs validation data and a validation interval.
     */
    public Builder optTargetMetric(String name, double value) {
      this.targetMetric = name(name, "target metric");
      this.targetValue = finite(value, "Target value");
      return this;
    }

    /** Stop after this many validations without improvement of the target metric (or loss). */
    public Builder optEarlyStoppingPatience(int validations) {
      this.earlyStoppingPatience = positive(validations, "earlyStoppingPatience (validations)");
      return this;
    }

    /** A Hadoop path (file:, hdfs:, s3a: ...) for checkpoints; resumes from it when present. */
    public Builder optCheckpointDir(String hadoopPath) {
      this.checkpointDir = name(hadoopPath, "checkpoint directory");
      return this;
    }

    /**
     * Start from the layers of a weights file (any Hadoop URI; Caffe: {@code .caffemodel}) copied
     * by layer name as {@code caffe train --weights} does ({@link
     * org.sparknet.api.WeightCollection#copyByLayerName}); a checkpoint to resume from wins.
     */
    public Builder optInitialWeights(String uri) {
      this.initialWeights = name(uri, "initial weights file");
      return this;
    }

    public Builder optCheckpointEvery(int rounds) {
      this.checkpointEvery = positive(rounds, "checkpointEvery (rounds)");
      return this;
    }

    /**
     * A file (a path or Hadoop URI) that receives one JSON line per round: a new run starts it
     * anew, a run resumed from round r keeps the lines of rounds 1..r.
     */
    public Builder optMetricsFile(String path) {
      this.metricsFile = name(path, "metrics file");
      return this;
    }

    /** Reproducible training: identical weights for the same data; fixed tau and executors only. */
    public Builder optDeterministic(boolean deterministic) {
      this.deterministic = deterministic;
      return this;
    }

    /** Use treeAggregate above this many partitions (default 16). */
    public Builder optTreeAggregateAbove(int partitions) {
      this.treeAggregateAbove = nonNegative(partitions, "treeAggregateAbove");
      return this;
    }

    /**
     * Hybrid training (SINGA's worker groups): each worker is a {@link
     * org.sparknet.api.SolverGroup} of {@code size} solvers on {@code size} threads averaging after
     * every step; give each task as many cores ({@code spark.task.cpus}). Default 1.
     */
    public Builder optGroupSize(int size) {
      this.groupSize = positive(size, "groupSize (solvers per worker)");
      return this;
    }

    /**
     * K workers on each GPU where Spark assigns the tasks none (local mode; the device rule "gpu"):
     * partition p on GPU (p / K) mod N of N visible, and more workers than K×N an error. Where
     * Spark assigns GPUs, {@code spark.task.resource.gpu.amount} = 1/K shares them instead.
     */
    public Builder optWorkersPerGpu(int k) {
      this.gpuSharing = GpuSharing.of(positive(k, "workersPerGpu (workers sharing each GPU)"));
      return this;
    }

    public TrainerConfig build() {
      ConfigRules.requireNet(netDefinition);
      return ConfigRules.checked(new TrainerConfig(this));
    }
  }
}
