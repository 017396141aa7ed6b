package org.sparknet.api.train;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.Net;
import org.sparknet.api.data.Example;
import org.sparknet.api.internal.driver.BroadcastReleaser;
import org.sparknet.api.internal.driver.DriverRound;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.RoundDriver;
import org.sparknet.api.internal.driver.TestJob;
import org.sparknet.api.internal.driver.TrainerState;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.worker.WorkerPlan;

/**
 * A trainer's data and the rounds run over it: the packed, cached training and validation sets, the
 * {@link RoundDriver} built on the training set, one round from the current weights to its metrics,
 * and the validation job. It is apart from {@link SparkNetTrainer} so that the front keeps the
 * run's lifecycle (construction, warm start, checkpoints, listeners, close) and this class the work
 * each round does on Spark; both share the one {@link TrainerState}.
 */
final class TrainingRounds {
  private final JavaSparkContext sc;
  private final TrainerConfig cfg;
  private final Net driverNet;
  private final NetInputs inputs;
  private final TrainerState state;
  private final WorkerPlan plan;
  private final RoundPlan roundPlan;
  private final BroadcastReleaser releaser;
  private final int workers;

  private PackedData training;
  private RoundDriver rounds;
  // one per test net, or one that every test net tests on
  private List<PackedData> validation = List.of();

  TrainingRounds(
      JavaSparkContext sc,
      TrainerConfig cfg,
      Net driverNet,
      NetInputs inputs,
      TrainerState state,
      WorkerPlan plan,
      RoundPlan roundPlan,
      BroadcastReleaser releaser,
      int workers) {
    this.sc = sc;
    this.cfg = cfg;
    this.driverNet = driverNet;
    this.inputs = inputs;
    this.state = state;
    this.plan = plan;
    this.roundPlan = roundPlan;
    this.releaser = releaser;
    this.workers = workers;
  }

  /**
   * Packs {@code examples} as the training data (one job), uncaches the previous set and builds the
   * round driver on the new one (which stops the previous driver).
   */
  PackedData setTraining(JavaRDD<Example> examples, String source) {
    PackedData packed = inputs.training(examples, workers, source);
    if (training != null) {
      training.unpersist();
    }
    training = packed;
    rounds = WorkerPlans.rounds(sc, cfg, plan, packed, releaser, rounds);
    return packed;
  }

  /**
   * Packs {@code sets} as the validation data in their own partitioning, one set that every test
   * net tests on or one per test net ({@link Net#testNetCount()}); uncaches the old.
   *
   * @throws IllegalArgumentException when the count is neither, or a set is empty
   */
  void setValidation(List<JavaRDD<Example>> sets, String source) {
    int nets = driverNet.testNetCount();
    if (sets.isEmpty() || (sets.size() != 1 && sets.size() != nets)) {
      throw new IllegalArgumentException(
          "Net '"
              + driverNet.name()
              + "' has "
              + nets
              + " test net(s) but "
              + sets.size()
              + " validation data sets were given; give one for every test net, or one per"
              + " test net in the order of the solver's test_iter");
    }
    List<PackedData> packed = new ArrayList<>();
    try {
      for (int k = 0; k < sets.size(); k++) {
        String what = sets.size() == 1 ? source : source + " of " + driverNet.describeTestNet(k);
        packed.add(inputs.validation(sets.get(k), what));
      }
    } catch (RuntimeException e) {
      packed.forEach(PackedData::unpersist);
      throw e;
    }
    validation.forEach(PackedData::unpersist);
    validation = List.copyOf(packed);
  }

  /** The training data, or null before it is set. */
  PackedData training() {
    return training;
  }

  /** The training data; throws when it has not been set. */
  PackedData requireTraining() {
    if (training == null) {
      throw new IllegalStateException("No training data: call setTrainingData(...) first");
    }
    return training;
  }

  /**
   * Runs one round on the training data, validates if due (the config's validation interval, or
   * {@code testAfter} accepting the round's last iteration), and feeds the round plan the metrics.
   *
   * @param plannedRounds the round a bounded {@code train} call stops at (0: unbounded), shown in
   *     the Spark job's description
   */
  RoundMetrics run(int plannedRounds, LongPredicate testAfter) {
    int r = state.round() + 1;
    RoundSteps steps = roundPlan.next(state.iteration());
    if (steps.maxIterations() > 0) {
      driverNet.setMaxIterations(steps.maxIterations()); // for the learning rate it reports
    }
    sc.setJobDescription(RoundResults.jobDescription(r, plannedRounds, roundPlan.tauText()));
    long start = System.nanoTime();
    DriverRound.Outcome outcome;
    try {
      outcome =
          rounds.run(
              state.nextRound(
                  cfg.deterministic() || training.partitions() <= cfg.treeAggregateAbove(), steps));
    } finally {
      sc.setJobDescription(null);
    }
    long c0 = System.nanoTime();
    float[] next = RoundResults.nextWeights(outcome.totals(), rounds, state, r);
    long combineNanos = outcome.combineNanos() + System.nanoTime() - c0;
    state.completeRound(next, outcome.totals());
    long wallMillis = (System.nanoTime() - start) / 1_000_000;
    RoundMetrics m = finishRound(outcome, combineNanos, wallMillis, steps.tau(), testAfter);
    roundPlan.observe(m);
    return m;
  }

  /** Validates if due, and assembles the round's metrics. */
  private RoundMetrics finishRound(
      DriverRound.Outcome o, long combineNanos, long wallMillis, int tau, LongPredicate testAfter) {
    int r = state.round();
    Map<String, Float> val = Map.of();
    List<TestNetResult> nets = List.of();
    long valMillis = 0;
    boolean due = cfg.validationInterval() > 0 && r % cfg.validationInterval() == 0;
    if (!validation.isEmpty() && (due || testAfter.test(state.iteration()))) {
      long v0 = System.nanoTime();
      if (driverNet.testNetCount() > 1) {
        nets = testAll();
        val = nets.get(0).outputs();
      } else {
        val = test();
      }
      valMillis = (System.nanoTime() - v0) / 1_000_000;
    }
    return RoundResults.metrics(o, state, training.total())
        .learningRate(driverNet.learningRate(Math.max(0, state.iteration() - 1)))
        .tau(tau)
        .validation(val)
        .testNets(nets)
        .timings(RoundResults.timings(o, combineNanos, wallMillis, valMillis))
        .build();
  }

  /** Tests the current weights on the whole validation set (see {@link SparkNetTrainer#test}). */
  Map<String, Float> test() {
    return testNet(0);
  }

  /**
   * Tests the current weights with every test net, each on its own validation set (see {@link
   * SparkNetTrainer#testAll}).
   */
  List<TestNetResult> testAll() {
    requireValidation();
    List<TestNetResult> out = new ArrayList<>();
    for (int k = 0; k < driverNet.testNetCount(); k++) {
      out.add(new TestNetResult(k, driverNet.testNetStages(k), testNet(k)));
    }
    return List.copyOf(out);
  }

  private Map<String, Float> testNet(int k) {
    requireValidation();
    PackedData data = validation.size() == 1 ? validation.get(0) : validation.get(k);
    String which = driverNet.testNetCount() > 1 ? " (" + driverNet.describeTestNet(k) + ")" : "";
    sc.setJobDescription("SparkNet test after round " + state.round() + which);
    try {
      return roundPlan.timedTest(() -> TestJob.run(sc, plan, state.weights(), data, k).means());
    } finally {
      sc.setJobDescription(null);
    }
  }

  private void requireValidation() {
    if (validation.isEmpty()) {
      throw new IllegalStateException("No validation data: call setValidationData(...) first");
    }
  }

  /** Stops the round driver (when there is one) and closes the broadcast releaser. */
  void stop() {
    RoundDriver.stop(rounds, releaser);
  }

  /** Uncaches the training and validation data. */
  void uncache() {
    PackedData.uncache(sc, training);
    PackedData.uncache(sc, validation.toArray(new PackedData[0]));
  }
}
