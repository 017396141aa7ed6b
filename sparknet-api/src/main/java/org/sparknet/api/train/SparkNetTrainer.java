package org.sparknet.api.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.LongPredicate;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.internal.driver.BroadcastReleaser;
import org.sparknet.api.internal.driver.DriverRound;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.TrainerState;
import org.sparknet.api.internal.driver.WorkerJobs;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.worker.BlasThreads;
import org.sparknet.api.internal.worker.WorkerPlan;
import org.sparknet.api.internal.worker.WorkerRegistry;
import org.sparknet.api.model.Model;

/**
 * Trains a net on Spark, batch-synchronously (SparkNet, Moritz et al. 2016): each round the driver
 * broadcasts the weights once, every worker (one partition of the training data) runs tau solver
 * steps on its own data starting from them, and the driver combines the results into the next
 * weights ({@code docs/architecture.md} draws one round); {@link #model()} is the result.
 *
 * <p>This class is the front: it holds the run's {@link TrainerState} and wires the pieces. {@link
 * TrainingRounds} holds the data and runs each round; {@link DriverRound} drives a round (with
 * {@link Averaging#ALL_REDUCE}, a barrier stage whose tasks sum among themselves); each worker runs
 * {@link WorkerTasks#train} on its executor, keeping its net.
 *
 * <p><b>Data.</b> The training data is repartitioned to the worker count (left as it is when it
 * already has that many partitions), packed into one shard per partition on the executors and
 * cached. Each worker reads its shard in exact, per-epoch reshuffled epochs; its position is kept
 * on the driver and carried from round to round and into checkpoints.
 *
 * <p><b>Combining.</b> With at most {@link TrainerConfig#treeAggregateAbove()} partitions (and
 * always in deterministic mode) the results come to the driver and are summed in partition order;
 * above it {@code treeAggregate} sums them on the executors. Sums are kept in double and divided
 * once, so averaging identical weights returns them exactly.
 *
 * <p><b>Failures.</b> A non-finite loss or weight stops training with a {@link
 * TrainingDivergedException} naming the round and partition; {@link #getWeights()} still returns
 * the last good weights. Errors in the data come back as {@link IllegalArgumentException} with the
 * task's message. Not thread-safe: drive one trainer from one thread.
 */
public final class SparkNetTrainer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SparkNetTrainer.class);

  private final JavaSparkContext sc;
  private final TrainerConfig cfg;
  private final String trainerId = UUID.randomUUID().toString();
  private final int workers;
  private final Net driverNet;
  private final NetInputs inputs;
  private final TrainerState state;
  private final StopRules stopRules;
  private final RoundPlan roundPlan;
  private final TrainingRounds rounds;
  private final RoundOutputs outputs; // checkpoints, saved trainers, metrics file, listeners
  private final BroadcastReleaser releaser =
      new BroadcastReleaser("SparkNet broadcast releaser " + trainerId.substring(0, 8));

  private boolean warmStartDone;
  private int plannedRounds;
  private boolean closed;

  /**
   * Builds the driver's net (its initial weights, with the layers of {@link
   * TrainerConfig#initialWeights()} copied in, are the starting point) and, when the checkpoint
   * directory holds a checkpoint of the same net, resumes from it.
   *
   * @throws IllegalArgumentException when the definition is bad or its data blob is missing, when
   *     the checkpoint directory holds a checkpoint of another net or worker count, or when the
   *     workers do not fit the local GPUs at the config's workers per GPU
   */
  public SparkNetTrainer(JavaSparkContext sc, TrainerConfig cfg) {
    this.sc = Objects.requireNonNull(sc, "sc");
    this.cfg = Objects.requireNonNull(cfg, "cfg");
    this.workers = cfg.workers() > 0 ? cfg.workers() : sc.defaultParallelism();
    TaskDevices.checkFits(
        sc.isLocal(), cfg.netDefinition(), cfg.groupSize(), cfg.gpuSharing(), workers);
    BlasThreads.check(sc.getConf());
    this.driverNet = NetProvider.build(TaskDevices.forDriver(cfg.netDefinition()));
    try {
      this.inputs = new NetInputs(driverNet, cfg);
      WeightCollection initial = InitialWeights.of(sc, cfg, driverNet);
      WeightLayout layout = WeightLayout.of(initial);
      this.state = new TrainerState(layout, layout.flatten(initial), workers);
      WorkerPlan plan = WorkerPlans.of(cfg, trainerId, layout);
      this.stopRules = new StopRules(cfg);
      this.roundPlan = new RoundPlan(cfg);
      this.rounds =
          new TrainingRounds(sc, cfg, driverNet, inputs, state, plan, roundPlan, releaser, workers);
      this.outputs = new RoundOutputs(sc, cfg, trainerId, workers, state);
      warmStartDone = outputs.resumed();
    } catch (RuntimeException e) {
      driverNet.close();
      throw e;
    }
  }

  // ---------------------------------------------------------------- data

  /** Sets the training data: repartitioned to the worker count, packed and cached (one job). */
  public SparkNetTrainer setTrainingData(JavaRDD<Example> examples) {
    return setTraining(examples, "Example.features");
  }

  private SparkNetTrainer setTraining(JavaRDD<Example> examples, String source) {
    checkOpen();
    PackedData packed = rounds.setTraining(examples, source);
    LOG.info("Training data: {} examples in {} partitions", packed.total(), packed.partitions());
    return this;
  }

  /**
   * Sets the training data from a DataFrame: features from a Spark ML {@code Vector} or {@code
   * array<float>}/{@code array<double>} column, labels from a numeric column.
   */
  public SparkNetTrainer setTrainingData(Dataset<Row> df, String featuresCol, String labelCol) {
    checkOpen();
    return setTraining(
        FeatureColumns.examples(df, featuresCol, labelCol), "Column '" + featuresCol + "'");
  }

  /**
   * Sets the validation data, kept in its own partitioning, packed and cached: every test net of
   * the net ({@link Net#testNetCount()}) tests on it.
   */
  public SparkNetTrainer setValidationData(JavaRDD<Example> examples) {
    return setValidation(List.of(examples), "Example.features");
  }

  /**
   * Sets one validation data set per test net, in the order of the net's test nets (Caffe: of the
   * solver's {@code test_iter}), or one list element that every test net tests on.
   *
   * @throws IllegalArgumentException when the count is neither 1 nor {@link Net#testNetCount()}
   */
  public SparkNetTrainer setValidationData(List<JavaRDD<Example>> perTestNet) {
    return setValidation(perTestNet, "Example.features");
  }

  private SparkNetTrainer setValidation(List<JavaRDD<Example>> sets, String source) {
    checkOpen();
    rounds.setValidation(sets, source);
    return this;
  }

  public SparkNetTrainer setValidationData(Dataset<Row> df, String featuresCol, String labelCol) {
    checkOpen();
    return setValidation(
        List.of(FeatureColumns.examples(df, featuresCol, labelCol)),
        "Column '" + featuresCol + "'");
  }

  // ---------------------------------------------------------------- training

  /** Runs one round and returns its metrics. */
  public RoundMetrics trainRound() {
    return trainRound(iteration -> false);
  }

  /**
   * Runs one round and returns its metrics; tests every test net after it, on its validation data,
   * when the config's validation interval says so or {@code testAfter} accepts the round's last
   * iteration, so that the results go into the metrics, the metrics file and the listeners.
   */
  public RoundMetrics trainRound(LongPredicate testAfter) {
    checkOpen();
    Objects.requireNonNull(testAfter, "testAfter");
    PackedData training = rounds.requireTraining();
    if (!warmStartDone) {
      warmStartDone = true;
      if (cfg.warmStartSteps() > 0) {
        WarmStart.run(sc, cfg, driverNet, training, state);
      }
    }
    RoundMetrics m = rounds.run(plannedRounds, testAfter);
    LOG.info("SparkNet {}", m.summary());
    outputs.record(m, rounds.training(), driverNet.hasSolverState());
    return m;
  }

  /**
   * Runs {@code rounds} more rounds, fewer when the run's steps are spent ({@link #budgetSpent}).
   */
  public List<RoundMetrics> train(int rounds) {
    if (rounds < 0) {
      throw new IllegalArgumentException("rounds must be >= 0 but was " + rounds);
    }
    if (rounds == 0) {
      return List.of();
    }
    plannedRounds = state.round() + rounds;
    try {
      return train(StopCondition.afterRounds(rounds));
    } finally {
      plannedRounds = 0;
    }
  }

  /** Runs rounds until {@code stop} says so (checked after each round) or the steps are spent. */
  public List<RoundMetrics> train(StopCondition stop) {
    Objects.requireNonNull(stop, "stop");
    List<RoundMetrics> history = new ArrayList<>();
    while (!budgetSpent()) {
      RoundMetrics m = trainRound();
      history.add(m);
      if (stop.shouldStop(m, history)) {
        break;
      }
    }
    return history;
  }

  /** Whether the run is at its last step (max iterations, or its time budget's plan). */
  public boolean budgetSpent() {
    return roundPlan.spent(state.iteration());
  }

  /** The step the run will stop at (as planned now, for a time budget), or 0 when unbounded. */
  public long plannedIterations() {
    return roundPlan.limit();
  }

  /**
   * Runs rounds until one of the config's stop criteria holds: max rounds (counted from the very
   * first round, resumed ones included), max epochs, max iterations, the time budget, the target
   * metric, early stopping.
   */
  public List<RoundMetrics> train() {
    stopRules.requireAny();
    if (cfg.maxRounds() > 0 && state.round() >= cfg.maxRounds()) {
      return List.of();
    }
    plannedRounds = cfg.maxRounds();
    try {
      return train((last, history) -> stopRules.shouldStop(last));
    } finally {
      plannedRounds = 0;
    }
  }

  // ---------------------------------------------------------------- testing and weights

  /**
   * Tests the current weights on the whole validation set, distributed over its partitions, in
   * batches of the test net's batch size. Returns the example-weighted mean of each test output.
   */
  public Map<String, Float> test() {
    checkOpen();
    return rounds.test();
  }

  /**
   * Tests the current weights with every test net ({@link Net#testNetCount()}), each on its own
   * validation set ({@link #setValidationData(List)}), as {@link #test()} does for net #0.
   */
  public List<TestNetResult> testAll() {
    checkOpen();
    return rounds.testAll();
  }

  /**
   * Saves {@link #model()} as a model directory ({@link Model#load} reads it) plus the trainer's
   * state under {@code state/} (the checkpoint format: round, iteration, data positions, solver
   * states, elastic workers' weights), which {@link #restore} reads back into a trainer of the same
   * definition and worker count.
   *
   * @param overwrite replace a model already saved there; without it, saving over one fails
   */
  public void save(String dir, boolean overwrite) {
    checkOpen();
    outputs.save(
        Objects.requireNonNull(dir, "dir"),
        overwrite,
        getWeights(),
        rounds.training(),
        driverNet.hasSolverState());
  }

  /**
   * Loads a trainer saved by {@link #save}, or the latest checkpoint of a checkpoint directory:
   * weights, round, iteration, data positions and solver states. The definition must be the one it
   * was saved with.
   */
  public void restore(String dir) {
    checkOpen();
    outputs.restore(dir);
    warmStartDone = true;
  }

  /** The net and a copy of its current weights (the centre, for elastic averaging). */
  public Model model() {
    return Model.of(cfg.netDefinition(), getWeights());
  }

  /** A copy of the current weights (the centre, for elastic averaging). */
  public WeightCollection getWeights() {
    checkOpen();
    return state.layout().toCollection(state.weights());
  }

  /**
   * Replaces the current weights; the next round starts from them (elastic workers too).
   *
   * @throws IllegalArgumentException when the layers or shapes differ from the net's
   */
  public void setWeights(WeightCollection newWeights) {
    checkOpen();
    String diff = state.layout().structureDifference(newWeights);
    if (diff != null) {
      throw new IllegalArgumentException(diff);
    }
    state.replaceWeights(state.layout().flatten(newWeights));
  }

  /**
   * The weights each worker's net holds now, by partition (null for one without a net): after the
   * last round's local steps, or the elastic workers' own weights. One Spark job.
   */
  public List<WeightCollection> getWorkerWeights() {
    checkOpen();
    PackedData training = rounds.requireTraining();
    return Arrays.stream(WorkerJobs.weights(training, trainerId, state.layout(), state.lineages()))
        .map(w -> w == null ? null : state.layout().toCollection(w))
        .toList();
  }

  public void addListener(RoundListener listener) {
    outputs.addListener(listener);
  }

  public boolean removeListener(RoundListener listener) {
    return outputs.removeListener(listener);
  }

  /** Rounds completed (resumed ones included). */
  public int round() {
    return state.round();
  }

  /** Solver steps each worker has run (the most of any worker for timed rounds). */
  public long iteration() {
    return state.iteration();
  }

  public int workers() {
    return workers;
  }

  public TrainerConfig config() {
    return cfg;
  }

  /** Examples in each training partition (empty before training data is set). */
  public long[] trainingPartitionSizes() {
    PackedData training = rounds.training();
    return training == null ? new long[0] : training.counts();
  }

  /** Examples each partition has been fed so far (its position in its exact epochs). */
  public long[] examplesFed() {
    return state.positions();
  }

  /** Floats per example that the net's data blob takes (its size without the batch axis). */
  public int featureSize() {
    return inputs.featureSize();
  }

  /** This trainer's id: the key of its nets on the executors. */
  public String id() {
    return trainerId;
  }

  /** One line for notebooks: net, workers, schedule, averaging, progress and data sizes. */
  @Override
  public String toString() {
    return TrainerSummary.of(
        closed ? cfg.netDefinition().engine() + " net" : driverNet.name(),
        state,
        workers,
        roundPlan.tauText(),
        cfg.averaging(),
        rounds.training(),
        closed);
  }

  /**
   * Frees the driver's net and the executors' nets, uncaches the data and closes the metrics file;
   * idempotent. In local mode the executor nets live in this JVM and are freed directly; on a
   * cluster one job visits enough partitions to reach every executor (best effort: an executor lost
   * meanwhile frees nothing).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    rounds.stop();
    WorkerJobs.release(sc, trainerId, workers);
    rounds.uncache();
    RuntimeException failure = null;
    for (Runnable step :
        new Runnable[] {
          () -> WorkerRegistry.release(trainerId), driverNet::close, outputs::close
        }) {
      try {
        step.run();
      } catch (RuntimeException e) {
        failure = failure == null ? e : failure;
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
}
