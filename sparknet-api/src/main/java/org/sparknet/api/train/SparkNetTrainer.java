package org.sparknet.api.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.internal.BroadcastReleaser;
import org.sparknet.api.internal.Checkpoint;
import org.sparknet.api.internal.ExecutorNets;
import org.sparknet.api.internal.FlatWeights;
import org.sparknet.api.internal.PartitionResult;
import org.sparknet.api.internal.RoundInput;
import org.sparknet.api.internal.RowConversion;
import org.sparknet.api.internal.WeightLayout;
import org.sparknet.api.internal.WeightSum;
import org.sparknet.api.internal.WorkerRound;
import org.sparknet.ndarray.Shape;

/**
 * Trains a net on Spark, batch-synchronously (SparkNet, Moritz et al. 2016): each round the driver
 * broadcasts the weights once, every worker (one partition of the training data) runs tau solver
 * steps on its own data starting from them, and the driver combines the results into the next
 * weights.
 *
 * <p><b>Data.</b> The training data is repartitioned to the worker count (left as it is when it
 * already has that many partitions), packed into one {@link DataShard} per partition on the
 * executors and cached. Each worker reads its shard in exact, per-epoch reshuffled epochs through a
 * {@link ShardFeeder}; its position in the data is kept on the driver and carried from round to
 * round (and into checkpoints).
 *
 * <p><b>Checkpoints.</b> With a checkpoint directory, every {@link TrainerConfig#checkpointEvery()}
 * rounds the weights, positions and, when the engine exports it ({@link Net#hasSolverState()}),
 * each worker's solver state (iteration and momentum history; one extra job) are written; a new
 * trainer on the same directory resumes from the newest and, in deterministic mode, continues
 * exactly as an uninterrupted run would (engines with random layers such as dropout excepted: their
 * random-number state is not stored).
 *
 * <p><b>Nets.</b> Each executor holds one net per (trainer, partition), built lazily from the
 * {@link NetDefinition} (with a per-partition seed) and kept across rounds; only the definition and
 * the flat weights cross the wire. The solver state of a worker (momentum history, iteration and so
 * the learning-rate schedule) stays in its net between rounds: each worker is one continuing solver
 * whose weights are replaced by the average at the start of each round, as in SparkNet. {@link
 * #close()} frees the driver's net and the executors' nets.
 *
 * <p><b>Combining.</b> Each partition returns its weights and example count (elastic averaging:
 * {@code w_i - c}); empty partitions return nothing and are not counted. With at most {@link
 * TrainerConfig#treeAggregateAbove()} partitions (and always in deterministic mode) the results
 * come to the driver and are summed in partition order: one job, one stage, the cheapest path
 * measured for a few partitions, and the order makes the sum reproducible. Above it, {@code
 * treeAggregate} sums them on the executors so the driver never holds more than a few. Sums are
 * kept in double and divided once, so averaging identical weights returns them exactly.
 *
 * <p><b>Failures.</b> A non-finite loss or weight stops training with a {@link
 * TrainingDivergedException} naming the round and partition; {@link #getWeights()} still returns
 * the last good weights. Errors in the data ({@link IllegalArgumentException} in a task) are
 * rethrown on the driver as {@code IllegalArgumentException} with the task's message.
 *
 * <p>Not thread-safe: drive one trainer from one thread.
 */
public final class SparkNetTrainer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SparkNetTrainer.class);
  private static final long WARM_START_SALT = 0x5741524dL;

  private final JavaSparkContext sc;
  private final TrainerConfig cfg;
  private final String trainerId = UUID.randomUUID().toString();
  private final int workers;
  private final Net driverNet;
  private final WeightLayout layout;
  private final int featureSize;
  private final String inputDescription;
  private final String fingerprint;
  private final List<RoundListener> listeners = new CopyOnWriteArrayList<>();
  private final BroadcastReleaser releaser =
      new BroadcastReleaser("SparkNet broadcast releaser " + trainerId.substring(0, 8));

  private float[] weights;
  private long weightsToken;
  private int round;
  private long iteration;
  private long[] positions;
  private SolverState[] pendingSolverStates;
  private JavaRDD<DataShard> training;
  // The rounds' RDD over `training`, built once per training set (see RoundInput).
  private final RoundInput roundInput = new RoundInput();
  private JavaRDD<PartitionResult> rounds;
  private JavaRDD<DataShard> roundsSource;
  private long[] trainingCounts;
  private JavaRDD<DataShard> validation;
  private boolean warmStartDone;
  private int plannedRounds;
  private double bestMetric = Double.NaN;
  private int validationsSinceBest;
  private boolean closed;

  /**
   * Builds the driver's net (its initial weights are the starting point) and, when the checkpoint
   * directory holds a checkpoint of the same net, resumes from it.
   *
   * @throws IllegalArgumentException when the definition is bad or its data blob is missing, or
   *     when the checkpoint directory holds a checkpoint of another net or worker count
   */
  public SparkNetTrainer(JavaSparkContext sc, TrainerConfig cfg) {
    this.sc = Objects.requireNonNull(sc, "sc");
    this.cfg = Objects.requireNonNull(cfg, "cfg");
    this.workers = cfg.workers() > 0 ? cfg.workers() : sc.defaultParallelism();
    this.driverNet = NetProvider.build(cfg.netDefinition());
    try {
      Map<String, Shape> inputs = driverNet.inputShapes(Phase.TRAIN);
      Shape data = inputs.get(cfg.dataBlob());
      if (data == null || data.rank() < 1 || data.dim(0) <= 0) {
        throw new IllegalArgumentException(
            "Net '"
                + driverNet.name()
                + "' has no input blob '"
                + cfg.dataBlob()
                + "' with a batch axis; its train inputs are "
                + inputs
                + "; set optDataBlob to the blob that receives the features");
      }
      this.featureSize = ShardFeeder.exampleSize(inputs, cfg.dataBlob(), cfg.contBlob());
      this.inputDescription = "blob '" + cfg.dataBlob() + "' " + data;
      WeightCollection initial = driverNet.getWeights();
      this.layout = WeightLayout.of(initial);
      this.weights = layout.flatten(initial);
      this.positions = new long[workers];
      this.fingerprint = fingerprint(cfg.netDefinition());
      if (cfg.checkpointDir().isPresent()) {
        resume(cfg.checkpointDir().get());
      }
    } catch (RuntimeException e) {
      driverNet.close();
      throw e;
    }
  }

  private void resume(String dir) {
    Checkpoint c;
    try {
      c = Checkpoint.readLatest(dir, sc.hadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoints in " + dir, e);
    }
    if (c == null) {
      return;
    }
    // A checkpoint that does not fit is bad input (the directory given), not a trainer misuse.
    if (!c.fingerprint().equals(fingerprint)) {
      throw new IllegalArgumentException(
          "The checkpoint of round "
              + c.round()
              + " in "
              + dir
              + " was written for another net definition; use another checkpoint directory"
              + " or the same definition");
    }
    if (!c.layout().equals(layout)) {
      throw new IllegalArgumentException(
          "The checkpoint in " + dir + " holds " + c.layout() + " but the net has " + layout);
    }
    if (c.positions().length != workers) {
      throw new IllegalArgumentException(
          "The checkpoint in "
              + dir
              + " was written with "
              + c.positions().length
              + " workers but this trainer has "
              + workers
              + "; resume with optWorkers("
              + c.positions().length
              + ")");
    }
    this.weights = c.weights();
    this.round = c.round();
    this.iteration = c.iteration();
    this.positions = c.positions().clone();
    if (c.solverStates() != null) {
      if (c.solverStates().length != workers) {
        throw new IllegalStateException(
            "The checkpoint in "
                + dir
                + " holds "
                + c.solverStates().length
                + " solver states for "
                + workers
                + " workers; it is corrupt");
      }
      this.pendingSolverStates = c.solverStates();
    }
    this.warmStartDone = true;
    this.weightsToken++;
    LOG.info("Resumed from {} in {}", c, dir);
  }

  // ---------------------------------------------------------------- data

  /** Sets the training data: repartitioned to the worker count, packed and cached (one job). */
  public SparkNetTrainer setTrainingData(JavaRDD<Example> examples) {
    return setTraining(examples, "Example.features");
  }

  /**
   * Sets the training data from a DataFrame: features from a Spark ML {@code Vector} or {@code
   * array<float>}/{@code array<double>} column, labels from a numeric column.
   */
  public SparkNetTrainer setTrainingData(Dataset<Row> df, String featuresCol, String labelCol) {
    checkOpen();
    return setTraining(
        RowConversion.examples(df, featuresCol, labelCol), "Column '" + featuresCol + "'");
  }

  /** Sets the validation data, kept in its own partitioning, packed and cached. */
  public SparkNetTrainer setValidationData(JavaRDD<Example> examples) {
    return setValidation(examples, "Example.features");
  }

  public SparkNetTrainer setValidationData(Dataset<Row> df, String featuresCol, String labelCol) {
    checkOpen();
    return setValidation(
        RowConversion.examples(df, featuresCol, labelCol), "Column '" + featuresCol + "'");
  }

  private SparkNetTrainer setTraining(JavaRDD<Example> examples, String source) {
    checkOpen();
    JavaRDD<Example> parts =
        examples.getNumPartitions() == workers ? examples : examples.repartition(workers);
    JavaRDD<DataShard> shards = pack(parts, featureSize, source, inputDescription);
    long[] counts = counts(shards);
    long total = sum(counts);
    int batch = driverNet.inputShapes(Phase.TRAIN).get(cfg.dataBlob()).dim(0);
    if (total < batch) {
      shards.unpersist(false);
      throw new IllegalArgumentException(
          (total == 0
                  ? "The training data is empty (" + counts.length + " partitions, 0 examples)"
                  : "The training data has "
                      + total
                      + " examples, fewer than one batch of "
                      + inputDescription
                      + "; every step would repeat examples")
              + "; give more data or lower the net's training batch size");
    }
    if (training != null) {
      training.unpersist(false);
    }
    training = shards;
    trainingCounts = counts;
    LOG.info("Training data: {} examples in {} partitions", sum(counts), counts.length);
    return this;
  }

  private SparkNetTrainer setValidation(JavaRDD<Example> examples, String source) {
    checkOpen();
    JavaRDD<DataShard> shards = pack(examples, featureSize, source, inputDescription);
    if (sum(counts(shards)) == 0) {
      shards.unpersist(false);
      throw new IllegalArgumentException("The validation data is empty (0 examples)");
    }
    if (validation != null) {
      validation.unpersist(false);
    }
    validation = shards;
    return this;
  }

  private static JavaRDD<DataShard> pack(
      JavaRDD<Example> parts, int size, String source, String target) {
    return parts
        .mapPartitionsWithIndex(
            (p, it) -> List.of(DataShard.pack(p, it, size, source, target)).iterator(), true)
        .persist(StorageLevel.MEMORY_ONLY());
  }

  private long[] counts(JavaRDD<DataShard> shards) {
    List<Integer> c;
    try {
      c = shards.map(DataShard::count).collect();
    } catch (Exception e) {
      shards.unpersist(false);
      throw unwrap(e);
    }
    return c.stream().mapToLong(Integer::longValue).toArray();
  }

  private static long sum(long[] a) {
    long s = 0;
    for (long v : a) {
      s += v;
    }
    return s;
  }

  // ---------------------------------------------------------------- training

  /** Runs one round and returns its metrics. */
  public RoundMetrics trainRound() {
    checkOpen();
    if (training == null) {
      throw new IllegalStateException("No training data: call setTrainingData(...) first");
    }
    if (sum(trainingCounts) == 0) {
      throw new IllegalStateException("The training data is empty: every partition has 0 rows");
    }
    if (!warmStartDone) {
      warmStartDone = true;
      if (cfg.warmStartSteps() > 0) {
        warmStart();
      }
    }
    final int r = round + 1;
    String tauText = cfg.tau() > 0 ? Integer.toString(cfg.tau()) : cfg.tauSeconds() + "s";
    sc.setJobDescription(
        "SparkNet round " + r + (plannedRounds >= r ? "/" + plannedRounds : "") + " τ=" + tauText);
    long start = System.nanoTime();
    Broadcast<float[]> bc = sc.broadcast(weights);
    long broadcastNanos = System.nanoTime() - start;
    WorkerRound.Task task =
        new WorkerRound.Task(
            trainerId,
            cfg.netDefinition(),
            layout,
            r,
            cfg.tau(),
            cfg.tauSeconds(),
            cfg.seed(),
            positions.clone(),
            cfg.dataBlob(),
            cfg.labelBlob(),
            cfg.contBlob(),
            cfg.averaging().isElastic(),
            cfg.averaging().alpha(),
            weightsToken,
            cfg.groupSize());
    Broadcast<SolverState[]> states =
        pendingSolverStates == null ? null : sc.broadcast(pendingSolverStates);
    WeightSum total;
    long driverCombineNanos;
    try {
      if (rounds == null || roundsSource != training) {
        RoundInput in = roundInput;
        rounds = training.mapPartitionsWithIndex(in::train, true);
        roundsSource = training;
      }
      roundInput.set(task, bc, states);
      JavaRDD<PartitionResult> results = rounds;
      if (cfg.deterministic() || training.getNumPartitions() <= cfg.treeAggregateAbove()) {
        List<PartitionResult> list = new ArrayList<>(results.collect());
        long c0 = System.nanoTime();
        list.sort(Comparator.comparingInt(PartitionResult::partition));
        total = new WeightSum();
        for (PartitionResult pr : list) {
          total.add(pr);
        }
        driverCombineNanos = System.nanoTime() - c0;
      } else {
        total = results.treeAggregate(new WeightSum(), WeightSum::add, WeightSum::merge, 2);
        driverCombineNanos = 0;
      }
    } catch (Exception e) {
      throw unwrap(e);
    } finally {
      roundInput.clear();
      releaser.release(bc);
      releaser.release(states);
      sc.setJobDescription(null);
    }
    pendingSolverStates = null; // the workers hold them now
    long c1 = System.nanoTime();
    if (total.divergence() != null) {
      throw new TrainingDivergedException(
          "Training diverged in round "
              + r
              + ", partition "
              + total.divergedPartition()
              + ": non-finite "
              + total.divergence()
              + "; the weights after round "
              + round
              + " are kept (getWeights()); lower the learning rate or check that partition's data",
          r,
          total.divergedPartition());
    }
    if (!total.hasValues()) {
      throw new IllegalStateException("Round " + r + ": no partition returned weights");
    }
    float[] next =
        cfg.averaging().isElastic() ? total.offset(weights, cfg.averaging().alpha()) : total.mean();
    if (FlatWeights.firstNonFinite(next) >= 0) {
      throw new TrainingDivergedException(
          "Training diverged in round "
              + r
              + ": the combined weights are non-finite ("
              + layout.toCollection(next).firstNonFinite()
              + "); the weights after round "
              + round
              + " are kept",
          r,
          -1);
    }
    driverCombineNanos += System.nanoTime() - c1;
    if (!total.restartedPartitions().isEmpty()) {
      LOG.warn(
          "Round {}: the solver of partition(s) {} restarted (momentum and iteration from zero):"
              + " the task ran on a new executor (one was lost) or a stale net (a retried or"
              + " speculative copy); training goes on, but no longer bit for bit as an"
              + " undisturbed run",
          r,
          total.restartedPartitions());
    }
    weights = next;
    round = r;
    iteration += total.maxSteps();
    for (int p = 0; p < positions.length; p++) {
      positions[p] += total.examplesOf(p);
    }
    long wallMillis = (System.nanoTime() - start) / 1_000_000;

    Map<String, Float> val = Map.of();
    long valMillis = 0;
    if (cfg.validationInterval() > 0 && validation != null && r % cfg.validationInterval() == 0) {
      long v0 = System.nanoTime();
      val = test();
      valMillis = (System.nanoTime() - v0) / 1_000_000;
    }
    long broadcastMillis = broadcastNanos / 1_000_000 + total.maxSetupMillis();
    long aggregateMillis = driverCombineNanos / 1_000_000 + total.maxExtractMillis();
    long computeMillis = total.maxComputeMillis();
    RoundMetrics m =
        new RoundMetrics(
            r,
            iteration,
            total.examples(),
            total.lossSum() / total.examples(),
            val,
            total.examples() * 1000.0 / Math.max(1, wallMillis),
            computeMillis,
            broadcastMillis,
            aggregateMillis,
            Math.max(0, wallMillis - computeMillis - broadcastMillis - aggregateMillis),
            wallMillis,
            valMillis);
    LOG.info("SparkNet {}", m.summary());
    if (cfg.checkpointDir().isPresent() && r % cfg.checkpointEvery() == 0) {
      checkpoint(cfg.checkpointDir().get());
    }
    if (cfg.metricsFile().isPresent()) {
      try {
        Files.writeString(
            Path.of(cfg.metricsFile().get()),
            m.toJson() + "\n",
            StandardCharsets.UTF_8,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot append to the metrics file " + cfg.metricsFile().get(), e);
      }
    }
    for (RoundListener l : listeners) {
      l.onRound(m);
    }
    return m;
  }

  /** Runs {@code rounds} more rounds. */
  public List<RoundMetrics> train(int rounds) {
    if (rounds < 0) {
      throw new IllegalArgumentException("rounds must be >= 0 but was " + rounds);
    }
    plannedRounds = round + rounds;
    try {
      List<RoundMetrics> history = new ArrayList<>();
      for (int i = 0; i < rounds; i++) {
        history.add(trainRound());
      }
      return history;
    } finally {
      plannedRounds = 0;
    }
  }

  /** Runs rounds until {@code stop} says so (checked after each round). */
  public List<RoundMetrics> train(StopCondition stop) {
    Objects.requireNonNull(stop, "stop");
    List<RoundMetrics> history = new ArrayList<>();
    while (true) {
      RoundMetrics m = trainRound();
      history.add(m);
      if (stop.shouldStop(m, history)) {
        return history;
      }
    }
  }

  /**
   * Runs rounds until one of the config's stop criteria holds: max rounds (counted from the very
   * first round, resumed ones included), max iterations, the target metric, early stopping.
   */
  public List<RoundMetrics> train() {
    if (cfg.maxRounds() == 0
        && cfg.maxIterations() == 0
        && cfg.targetMetric().isEmpty()
        && cfg.earlyStoppingPatience() == 0) {
      throw new IllegalStateException(
          "train() needs a stop criterion in the config (optMaxRounds, optMaxIterations,"
              + " optTargetMetric or optEarlyStoppingPatience); or call train(rounds)");
    }
    if (cfg.maxRounds() > 0 && round >= cfg.maxRounds()) {
      return List.of();
    }
    plannedRounds = cfg.maxRounds();
    try {
      return train((last, history) -> configSaysStop(last));
    } finally {
      plannedRounds = 0;
    }
  }

  private boolean configSaysStop(RoundMetrics m) {
    if (cfg.maxRounds() > 0 && m.round() >= cfg.maxRounds()) {
      return true;
    }
    if (cfg.maxIterations() > 0 && m.iteration() >= cfg.maxIterations()) {
      return true;
    }
    if (m.validation().isEmpty()) {
      return false;
    }
    String metric = cfg.targetMetric().orElse("loss");
    Float v = m.validation().get(metric);
    if (v == null) {
      if (cfg.targetMetric().isPresent()) {
        throw new IllegalStateException(
            "The test net has no output '"
                + metric
                + "' (it has "
                + m.validation().keySet()
                + "); fix optTargetMetric");
      }
      return false;
    }
    boolean lower = TrainerConfig.lowerIsBetter(metric);
    if (cfg.targetMetric().isPresent()
        && (lower ? v <= cfg.targetValue() : v >= cfg.targetValue())) {
      LOG.info("Target {} {} reached in round {}: {}", metric, cfg.targetValue(), m.round(), v);
      return true;
    }
    if (cfg.earlyStoppingPatience() > 0) {
      if (Double.isNaN(bestMetric) || (lower ? v < bestMetric : v > bestMetric)) {
        bestMetric = v;
        validationsSinceBest = 0;
      } else if (++validationsSinceBest >= cfg.earlyStoppingPatience()) {
        LOG.info(
            "Early stop in round {}: {} has not improved on {} for {} validations",
            m.round(),
            metric,
            bestMetric,
            validationsSinceBest);
        return true;
      }
    }
    return false;
  }

  private void warmStart() {
    int batch =
        ShardFeeder.batchSize(driverNet.inputShapes(Phase.TRAIN), cfg.dataBlob(), cfg.contBlob());
    long total = sum(trainingCounts);
    long want = Math.min((long) cfg.warmStartSteps() * batch, total);
    int[] take = new int[trainingCounts.length];
    for (int p = 0; p < take.length; p++) {
      take[p] = (int) Math.min(trainingCounts[p], (want * trainingCounts[p] + total - 1) / total);
    }
    long seed = cfg.seed() ^ WARM_START_SALT;
    sc.setJobDescription("SparkNet warm start sample");
    List<DataShard> parts;
    try {
      parts =
          training
              .mapPartitionsWithIndex(
                  (p, it) -> {
                    DataShard s = it.hasNext() ? it.next() : null;
                    if (s == null || s.isEmpty() || take[p] == 0) {
                      return List.<DataShard>of().iterator();
                    }
                    int[] order = ShardFeeder.epochOrder(s.count(), seed, p, 0);
                    return List.of(s.select(p, java.util.Arrays.copyOf(order, take[p]))).iterator();
                  },
                  true)
              .collect();
    } catch (Exception e) {
      throw unwrap(e);
    } finally {
      sc.setJobDescription(null);
    }
    DataShard sample = DataShard.concat(-1, parts);
    long t0 = System.nanoTime();
    FlatWeights.set(driverNet, layout, weights);
    float loss =
        driverNet.train(
            cfg.warmStartSteps(),
            new ShardFeeder(sample, cfg.dataBlob(), cfg.labelBlob(), cfg.seed(), -1, 0)
                .withContBlob(cfg.contBlob()));
    float[] w = FlatWeights.get(driverNet, layout);
    String bad = FlatWeights.firstNonFinite(w) < 0 ? null : layout.toCollection(w).firstNonFinite();
    if (!Float.isFinite(loss) || bad != null) {
      throw new TrainingDivergedException(
          "Warm start diverged on the driver: loss " + loss + (bad == null ? "" : ", " + bad),
          0,
          -1);
    }
    weights = w;
    weightsToken++;
    LOG.info(
        "Warm start: {} steps on {} examples on the driver, loss {}, {} ms",
        cfg.warmStartSteps(),
        sample.count(),
        loss,
        (System.nanoTime() - t0) / 1_000_000);
  }

  private void checkpoint(String dir) {
    SolverState[] states = driverNet.hasSolverState() ? workerSolverStates() : null;
    try {
      new Checkpoint(
              fingerprint,
              round,
              iteration,
              cfg.seed(),
              positions.clone(),
              layout,
              weights.clone(),
              states)
          .write(dir, sc.hadoopConfiguration());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the checkpoint of round " + round + " to " + dir, e);
    }
  }

  /**
   * Each partition's solver state (null for a partition without a net), by partition; one job. A
   * resume before the first round hands back the checkpoint's states, which the workers have not
   * taken yet.
   */
  private SolverState[] workerSolverStates() {
    if (pendingSolverStates != null) {
      return pendingSolverStates.clone();
    }
    String id = trainerId;
    sc.setJobDescription("SparkNet solver states after round " + round);
    List<WorkerRound.StateResult> results;
    try {
      results =
          training
              .mapPartitionsWithIndex((p, it) -> WorkerRound.solverState(id, p), true)
              .collect();
    } catch (Exception e) {
      throw unwrap(e);
    } finally {
      sc.setJobDescription(null);
    }
    SolverState[] out = new SolverState[workers];
    for (WorkerRound.StateResult r : results) {
      out[r.partition()] = r.state();
    }
    return out;
  }

  // ---------------------------------------------------------------- testing and weights

  /**
   * Tests the current weights on the whole validation set, distributed over its partitions, in
   * batches of the test net's batch size. Returns the example-weighted mean of each test output.
   */
  public Map<String, Float> test() {
    checkOpen();
    if (validation == null) {
      throw new IllegalStateException("No validation data: call setValidationData(...) first");
    }
    sc.setJobDescription("SparkNet test after round " + round);
    Broadcast<float[]> bc = sc.broadcast(weights);
    WorkerRound.Task task =
        new WorkerRound.Task(
            trainerId,
            cfg.netDefinition(),
            layout,
            round,
            1,
            0,
            cfg.seed(),
            new long[0],
            cfg.dataBlob(),
            cfg.labelBlob(),
            cfg.contBlob(),
            false,
            0f,
            weightsToken,
            1);
    List<WorkerRound.TestResult> results;
    try {
      results =
          validation
              .mapPartitionsWithIndex((p, it) -> WorkerRound.test(task, bc, p, it), true)
              .collect();
    } catch (Exception e) {
      throw unwrap(e);
    } finally {
      bc.destroy();
      sc.setJobDescription(null);
    }
    Map<String, Double> sums = new LinkedHashMap<>();
    long n = 0;
    for (WorkerRound.TestResult tr : results) {
      n += tr.examples();
      for (int i = 0; i < tr.names().length; i++) {
        sums.merge(tr.names()[i], tr.sums()[i], Double::sum);
      }
    }
    if (n == 0) {
      throw new IllegalStateException("The validation data is empty");
    }
    Map<String, Float> out = new LinkedHashMap<>();
    for (Map.Entry<String, Double> e : sums.entrySet()) {
      out.put(e.getKey(), (float) (e.getValue() / n));
    }
    return out;
  }

  /**
   * Saves the trained model to a Hadoop-compatible directory: the weights, the round, iteration,
   * data positions and each worker's solver state (the checkpoint format), plus the definition's
   * solver and net text for people and for Caffe. {@link #restore} reads it back into a trainer of
   * the same definition and worker count.
   *
   * @param overwrite replace a model already saved there; without it, saving over one fails
   */
  public void save(String dir, boolean overwrite) {
    checkOpen();
    Objects.requireNonNull(dir, "dir");
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir);
    try {
      org.apache.hadoop.fs.FileSystem fs = path.getFileSystem(sc.hadoopConfiguration());
      if (Checkpoint.readLatest(dir, sc.hadoopConfiguration()) != null) {
        if (!overwrite) {
          throw new IllegalArgumentException(
              "A SparkNet model is already saved in "
                  + dir
                  + "; pass overwrite=true to replace it or choose another directory");
        }
        fs.delete(path, true);
      }
      checkpoint(dir);
      writeText(
          fs,
          new org.apache.hadoop.fs.Path(path, "solver.prototxt"),
          cfg.netDefinition().solverText());
      if (cfg.netDefinition().netText() != null) {
        writeText(
            fs, new org.apache.hadoop.fs.Path(path, "net.prototxt"), cfg.netDefinition().netText());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot save the model to " + dir, e);
    }
  }

  /**
   * Loads a model saved by {@link #save} (or the latest checkpoint in a checkpoint directory):
   * weights, round, iteration, data positions and solver states. The definition must be the one it
   * was saved with.
   */
  public void restore(String dir) {
    checkOpen();
    try {
      if (Checkpoint.readLatest(dir, sc.hadoopConfiguration()) == null) {
        throw new IllegalArgumentException("No SparkNet model is saved in " + dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the model in " + dir, e);
    }
    resume(dir);
  }

  private static void writeText(
      org.apache.hadoop.fs.FileSystem fs, org.apache.hadoop.fs.Path p, String text)
      throws IOException {
    try (var out = fs.create(p, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A copy of the current weights (the centre, for elastic averaging). */
  public WeightCollection getWeights() {
    checkOpen();
    return layout.toCollection(weights);
  }

  /**
   * Replaces the current weights; the next round starts from them (elastic workers too).
   *
   * @throws IllegalArgumentException when the layers or shapes differ from the net's
   */
  public void setWeights(WeightCollection newWeights) {
    checkOpen();
    String diff = layout.structureDifference(newWeights);
    if (diff != null) {
      throw new IllegalArgumentException(diff);
    }
    weights = layout.flatten(newWeights);
    weightsToken++;
  }

  /**
   * The weights each worker's net holds now, by partition (null for a partition whose net does not
   * exist, such as an empty one). With plain averaging these are the weights after the last round's
   * local steps; with elastic averaging, the workers' own weights. One Spark job.
   */
  public List<WeightCollection> getWorkerWeights() {
    checkOpen();
    if (training == null) {
      throw new IllegalStateException("No training data: call setTrainingData(...) first");
    }
    String id = trainerId;
    WeightLayout l = layout;
    List<float[]> flats;
    try {
      flats =
          training
              .mapPartitionsWithIndex((p, it) -> WorkerRound.workerWeights(id, l, p), true)
              .collect();
    } catch (Exception e) {
      throw unwrap(e);
    }
    List<WeightCollection> out = new ArrayList<>();
    for (float[] f : flats) {
      out.add(f.length == 0 && l.size() != 0 ? null : l.toCollection(f));
    }
    return out;
  }

  public void addListener(RoundListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  public boolean removeListener(RoundListener listener) {
    return listeners.remove(listener);
  }

  /** Rounds completed (resumed ones included). */
  public int round() {
    return round;
  }

  /** Solver steps each worker has run (the most of any worker for timed rounds). */
  public long iteration() {
    return iteration;
  }

  public int workers() {
    return workers;
  }

  public TrainerConfig config() {
    return cfg;
  }

  /** Examples in each training partition (empty before training data is set). */
  public long[] trainingPartitionSizes() {
    return trainingCounts == null ? new long[0] : trainingCounts.clone();
  }

  /** Examples each partition has been fed so far (its position in its exact epochs). */
  public long[] examplesFed() {
    return positions.clone();
  }

  /** Floats per example that the net's data blob takes (its size without the batch axis). */
  public int featureSize() {
    return featureSize;
  }

  /** This trainer's id: the key of its nets on the executors. */
  public String id() {
    return trainerId;
  }

  /** One line for notebooks: net, workers, schedule, averaging, progress and data sizes. */
  @Override
  public String toString() {
    String tauText = cfg.tau() > 0 ? Integer.toString(cfg.tau()) : cfg.tauSeconds() + "s";
    return String.format(
        Locale.ROOT,
        "SparkNetTrainer{net '%s', %,d parameters, %d workers, tau=%s, %s, round %d, iteration %d,"
            + " training examples %s%s}",
        closed ? cfg.netDefinition().engine() + " net" : driverNet.name(),
        weights.length,
        workers,
        tauText,
        cfg.averaging(),
        round,
        iteration,
        trainingCounts == null ? "not set" : String.format("%,d", sum(trainingCounts)),
        closed ? ", closed" : "");
  }

  /**
   * Frees the driver's net and the executors' nets, and uncaches the data; idempotent. In local
   * mode the executor nets live in this JVM and are freed directly; on a cluster one job visits the
   * data's partitions to free them (best effort: an executor lost meanwhile frees nothing).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException failure = null;
    releaser.close();
    try {
      if (!sc.sc().isStopped() && !sc.isLocal()) {
        int n = Math.max(workers, sc.defaultParallelism()) * 2;
        String id = trainerId;
        sc.setJobDescription("SparkNet release nets");
        sc.parallelize(IntStream.range(0, n).boxed().toList(), n)
            .foreachPartition(it -> ExecutorNets.release(id));
        sc.setJobDescription(null);
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not release the executor nets of trainer {}: {}", trainerId, e.toString());
    }
    try {
      if (!sc.sc().isStopped()) {
        if (training != null) {
          training.unpersist(false);
        }
        if (validation != null) {
          validation.unpersist(false);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not uncache the data of trainer {}: {}", trainerId, e.toString());
    }
    try {
      ExecutorNets.release(trainerId);
    } catch (RuntimeException e) {
      failure = e;
    }
    try {
      driverNet.close();
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("SparkNetTrainer " + trainerId + " has been closed");
    }
  }

  /** A data error from a task comes back as IllegalArgumentException with the task's message. */
  private static RuntimeException unwrap(Exception e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof IllegalArgumentException iae) {
        return c == e ? iae : new IllegalArgumentException(iae.getMessage(), e);
      }
    }
    return e instanceof RuntimeException re ? re : new IllegalStateException(e.getMessage(), e);
  }

  private static String fingerprint(NetDefinition d) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (String s :
          new String[] {
            d.engine(),
            d.solverText(),
            String.valueOf(d.netText()),
            String.valueOf(d.sampleShape()),
            Long.toString(d.seed())
          }) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
      }
      return d.engine() + ":" + HexFormat.of().formatHex(md.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
