package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.testnet.OpenNetsCheck;
import org.sparknet.api.testnet.SoftmaxNet;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Budgets on real Fashion-MNIST rows and a real local Spark, with the pure-Java test engine (whose
 * {@code stepMillis} stands in for a machine's speed): a step budget is ended exactly under
 * adaptive tau and timed rounds, a time budget is ended inside on a machine and on one half as fast
 * with a poly learning rate at zero at the last step, and a place the run cannot write stops it
 * before the first step.
 */
@ExtendWith(OpenNetsCheck.class)
class BudgetsIT {
  private static final double LR = 0.05;
  private static List<Example> examples;
  private static JavaSparkContext sc;

  @BeforeAll
  static void setUp() {
    examples = FashionMnist.load(true, 400);
    sc = LocalSpark.context();
  }

  private static NetDefinition softmax(long stepMillis, long maxIter) {
    return new NetDefinition(
        "java-softmax",
        "features=784\nclasses=10\nbatch=8\nlr="
            + LR
            + "\nstepMillis="
            + stepMillis
            + (maxIter > 0 ? "\nmaxIter=" + maxIter : ""),
        null,
        null,
        7L,
        "cpu");
  }

  private static TrainerConfig.Builder twoWorkers(NetDefinition def) {
    return TrainerConfig.builder().setNetDefinition(def).optWorkers(2).optSeed(11);
  }

  /**
   * Adaptive tau grows well past what is left of max iterations 300 (the engine sleeps 1 ms a step,
   * small beside a round's scheduling, so the rule asks for long rounds), so only a shortened last
   * round ends on 300. Mutation: tau not clamped (RoundPlan.next returning the schedule's tau) ran
   * a third round of tau 1,000 and ended at iteration 1,040.
   */
  @Test
  void adaptiveTauEndsOnMaxIterationsExactly() {
    TrainerConfig cfg =
        twoWorkers(softmax(1, 0))
            .optTau(20)
            .optAdaptiveTau(0.02, 1000)
            .optMaxIterations(300)
            .build();
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(sc.parallelize(examples, 2));
      List<RoundMetrics> rounds = t.train();
      assertEquals(300, t.iteration(), "rounds: " + rounds);
      assertTrue(t.budgetSpent());
      assertThrows(IllegalStateException.class, t::trainRound);
      assertTrue(
          rounds.stream().anyMatch(m -> m.tau() > 60),
          "tau grew past what was left: the clamp was needed: " + rounds);
    }
  }

  /**
   * Timed rounds of 0.3 s at 2 ms a step run about 150 steps each, so the second round would carry
   * the workers past 300 without a cap. Mutation: no cap (RoundSteps.allowsAnother always true)
   * ended at iteration 399.
   */
  @Test
  void timedRoundsEndOnMaxIterationsExactly() {
    TrainerConfig cfg = twoWorkers(softmax(2, 0)).optTauSeconds(0.3).optMaxIterations(300).build();
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(sc.parallelize(examples, 2));
      List<RoundMetrics> rounds = t.train();
      assertEquals(300, t.iteration(), "rounds: " + rounds);
      assertTrue(rounds.size() >= 2, "one round held every step: " + rounds);
    }
  }

  /** How a budgeted run ended: seconds from the trainer's start to after the final test. */
  private record BudgetRun(
      double seconds, long iteration, long planned, double lastRate, double workerRate) {}

  private static BudgetRun budgeted(long stepMillis, Duration budget) {
    long start = System.nanoTime();
    TrainerConfig cfg =
        twoWorkers(softmax(stepMillis, 1_000_000))
            .optTau(25)
            .optValidationInterval(10)
            .optTimeBudget(TimeBudget.of(budget))
            .build();
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(sc.parallelize(examples.subList(0, 300), 2));
      t.setValidationData(sc.parallelize(examples.subList(300, 400), 2));
      List<RoundMetrics> rounds = t.train();
      t.test(); // the final test, which the plan keeps time for
      double seconds = (System.nanoTime() - start) / 1e9;
      RoundMetrics last = rounds.get(rounds.size() - 1);
      // Partition 0's net has the definition's seed + 1,000,003 (WorkerPlan.definitionFor).
      Float workerRate = SoftmaxNet.lastRate(cfg.netDefinition().seed() + 1_000_003L);
      return new BudgetRun(
          seconds, t.iteration(), t.plannedIterations(), last.learningRate(), workerRate);
    }
  }

  /**
   * A 12-second budget at 10 ms a step, and on a machine half as fast (20 ms): both end inside the
   * budget plus 0.5 s (scheduling and closing, past the plan's margin of 1 s), use at least 75 % of
   * it, end on the step they planned with the poly rate at its last step (base / max_iter: zero at
   * max_iter), and the slow one plans fewer steps in proportion to its pace. Mutation: the workers'
   * solvers not told the planned end (Worker without setMaxIterations) left partition 0's last rate
   * at 0.04996, the base rate over the definition's max_iter of 1,000,000.
   */
  @Test
  void aTimeBudgetEndsInsideOnAFastAndASlowMachine() {
    Duration budget = Duration.ofSeconds(12);
    BudgetRun fast = budgeted(10, budget);
    BudgetRun slow = budgeted(20, budget);
    for (BudgetRun r : List.of(fast, slow)) {
      String what = r + " (fast " + fast + ", slow " + slow + ")";
      assertTrue(r.seconds() <= 12.5, "past the budget: " + what);
      assertTrue(r.seconds() >= 9, "stopped well before the budget: " + what);
      assertEquals(r.planned(), r.iteration(), "not on its planned step: " + what);
      assertTrue(r.lastRate() <= LR / r.iteration() * 1.0001, "poly rate not at its end: " + what);
      assertTrue(r.workerRate() <= LR / r.iteration() * 1.0001, "a worker's rate: " + what);
    }
    double ratio = (double) slow.iteration() / fast.iteration();
    // Not exactly half: each step also pays its share of the round's scheduling and tests.
    assertTrue(ratio > 0.4 && ratio < 0.8, "a slower machine, fewer steps: " + ratio);
  }

  /**
   * A checkpoint directory or metrics file the run cannot write is found when the trainer is built,
   * before any data is set or any step runs. As root permissions do not stop a write, so a file
   * stands where the directory must be. Mutation: without the check in TrainerCheckpoints.resume
   * the trainer was built without an error (and its net was left open).
   */
  @Test
  void anUnwritableCheckpointOrMetricsFileStopsTheRunBeforeItTrains(@TempDir Path tmp)
      throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    String checkpoints = file.resolve("checkpoints").toUri().toString();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new SparkNetTrainer(
                    sc, twoWorkers(softmax(0, 0)).optTau(2).optCheckpointDir(checkpoints).build()));
    assertTrue(
        e.getMessage().startsWith("The checkpoint directory: Cannot write in"), e.getMessage());
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    String metrics = file.resolve("metrics.jsonl").toUri().toString();
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                new SparkNetTrainer(
                    sc, twoWorkers(softmax(0, 0)).optTau(2).optMetricsFile(metrics).build()));
    assertTrue(e.getMessage().startsWith("The metrics file: Cannot write in"), e.getMessage());
  }
}
