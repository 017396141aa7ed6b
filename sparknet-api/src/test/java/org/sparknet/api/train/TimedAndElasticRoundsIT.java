package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.api.testnet.OpenNetsCheck;
import org.sparknet.api.testnet.SoftmaxNet;
import org.sparknet.testing.Tolerance;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Timed rounds ({@code optTauSeconds}) against their deadline, and elastic averaging with several
 * workers against a computation done by hand: the two behaviours whose only earlier checks could
 * not fail for a broken trainer (one step per worker passed the timed test; EASGD with alpha > 0
 * had a single worker).
 */
@ExtendWith(OpenNetsCheck.class)
class TimedAndElasticRoundsIT {
  private static final int FEATURES = 784;
  private static final int CLASSES = 10;
  private static List<Example> examples;
  private static JavaSparkContext sc;

  @BeforeAll
  static void setUp() {
    examples = FashionMnist.load(true, 400);
    sc = LocalSpark.context();
  }

  private static NetDefinition softmax(int batch, double lr) {
    return new NetDefinition(
        "java-softmax",
        "features=" + FEATURES + "\nclasses=" + CLASSES + "\nbatch=" + batch + "\nlr=" + lr,
        null,
        null,
        7L,
        "cpu");
  }

  /**
   * Timed rounds of 0.4 s on two workers, partition 1's worker sleeping 150 ms in every step (a
   * slow machine): in every round the slowest worker's solver time is at least the deadline and at
   * most deadline + one slow step (+ 100 ms of scheduling jitter), the round's wall time at most
   * deadline + one step + 1 s of overhead, and the fast worker runs many times the slow one's steps
   * (each partition's examples fed / batch).
   *
   * <p>Mutations: timed rounds falling back to one fixed step (Worker.timedSteps as {@code
   * steps(1)}) gave compute 150 ms < 400 ms and 1 step on each worker; falling back to 10 fixed
   * steps gave compute 1,530 ms, past deadline + step. The real build gives compute 451-458 ms, 3
   * slow steps and hundreds of fast ones per round.
   */
  @Test
  void timedRoundsEndAtTheDeadlineAndTheFastWorkerRunsMoreSteps() {
    int batch = 8;
    long stepMillis = 150;
    double tauSeconds = 0.4;
    long deadline = (long) (tauSeconds * 1000);
    NetDefinition def = softmax(batch, 0.05);
    // Partition p's net has the definition's seed + 1,000,003 (p + 1) (WorkerPlan.definitionFor).
    long slowSeed = def.seed() + 1_000_003L * 2;
    List<List<Example>> parts = List.of(examples.subList(0, 200), examples.subList(200, 400));
    TrainerConfig cfg =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTauSeconds(tauSeconds)
            .optWorkers(2)
            .optSeed(11)
            .build();
    SoftmaxNet.slowDown(slowSeed, stepMillis);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(LocalSpark.partitioned(parts));
      long[] before = t.examplesFed().clone();
      for (int r = 0; r < 3; r++) {
        RoundMetrics m = t.trainRound();
        long[] fed = t.examplesFed().clone();
        long fast = (fed[0] - before[0]) / batch;
        long slow = (fed[1] - before[1]) / batch;
        before = fed;
        String what = m.summary() + "; steps fast " + fast + ", slow " + slow;
        long compute = m.computeMillis();
        assertTrue(compute >= deadline, "the round ended before its deadline: " + what);
        assertTrue(compute <= deadline + stepMillis + 100, "past deadline + one step: " + what);
        assertTrue(
            m.wallMillis() <= deadline + stepMillis + 1000, "round past deadline + step: " + what);
        assertTrue(slow >= 2 && slow <= 4, "the slow worker steps until the deadline: " + what);
        assertTrue(fast >= 5 * slow, "the fast worker ran more steps: " + what);
        assertEquals(fast, m.steps(), "steps() is the most of any worker: " + what);
      }
    } finally {
      SoftmaxNet.slowDown(slowSeed, 0);
    }
  }

  /**
   * EASGD, alpha 0.25, two workers, plain SGD, tau 2, three rounds, against the closed form
   * computed here in double: each partition is exactly one batch (8 examples), so a step is a
   * full-batch gradient step whatever the feeder's order, and round by round, for each worker p,
   * {@code w_p <- SGD^tau(w_p); d_p = w_p - c; w_p <- w_p - alpha d_p}, then {@code c <- c + alpha
   * sum_p d_p}. Centre and both workers must agree with it to 1e-5 relative, 1e-6 absolute (float
   * against double over 6 steps: the real build uses at most 5 % of that tolerance).
   *
   * <p>Mutation: the worker's elastic pull dropped (Worker.send without {@code pull}) gave worker
   * 0's weights off by 8.0e-3 in round 1 (6,700 times the tolerance).
   */
  @Test
  void elasticTwoWorkersMatchTheClosedFormInDouble() {
    int batch = 8;
    int tau = 2;
    float alpha = 0.25f;
    float lr = 0.1f;
    NetDefinition def = softmax(batch, lr);
    List<List<Example>> parts = List.of(examples.subList(0, batch), examples.subList(8, 2 * batch));
    TrainerConfig cfg =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(tau)
            .optWorkers(2)
            .optSeed(11)
            .optAveraging(Averaging.elastic(alpha))
            .build();
    Tolerance tol = new Tolerance(1e-5, 1e-6);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(LocalSpark.partitioned(parts));
      double[] c = flat(t.getWeights());
      double[][] w = {c.clone(), c.clone()};
      for (int r = 1; r <= 3; r++) {
        t.trainRound();
        double[] sum = new double[c.length];
        for (int p = 0; p < 2; p++) {
          for (int s = 0; s < tau; s++) {
            gradientStep(w[p], parts.get(p), lr);
          }
          for (int j = 0; j < c.length; j++) {
            double d = w[p][j] - c[j];
            w[p][j] -= alpha * d;
            sum[j] += d;
          }
        }
        for (int j = 0; j < c.length; j++) {
          c[j] += alpha * sum[j];
        }
        assertClose("centre, round " + r, c, flat(t.getWeights()), tol);
        List<WeightCollection> workers = t.getWorkerWeights();
        for (int p = 0; p < 2; p++) {
          assertClose("worker " + p + ", round " + r, w[p], flat(workers.get(p)), tol);
        }
      }
    }
  }

  /**
   * One step of plain SGD of softmax regression on all of {@code part} (one batch), in double:
   * {@code x} holds the weights [classes, features] then the bias [classes], as {@link #flat}.
   */
  private static void gradientStep(double[] x, List<Example> part, float lr) {
    int n = part.size();
    int biasAt = CLASSES * FEATURES;
    double[] g = new double[x.length];
    for (Example e : part) {
      double[] z = new double[CLASSES];
      double max = Double.NEGATIVE_INFINITY;
      for (int c = 0; c < CLASSES; c++) {
        z[c] = x[biasAt + c];
        for (int k = 0; k < FEATURES; k++) {
          z[c] += x[c * FEATURES + k] * e.features()[k];
        }
        max = Math.max(max, z[c]);
      }
      double total = 0;
      for (int c = 0; c < CLASSES; c++) {
        z[c] = Math.exp(z[c] - max);
        total += z[c];
      }
      for (int c = 0; c < CLASSES; c++) {
        double d = (z[c] / total - (c == (int) e.label() ? 1 : 0)) / n;
        g[biasAt + c] += d;
        for (int k = 0; k < FEATURES; k++) {
          g[c * FEATURES + k] += d * e.features()[k];
        }
      }
    }
    for (int j = 0; j < x.length; j++) {
      x[j] -= lr * g[j];
    }
  }

  /** The weights of "fc" then its bias, in double. */
  private static double[] flat(WeightCollection w) {
    List<Double> out = new ArrayList<>();
    for (WeightCollection.Tensor tensor : w.get("fc")) {
      for (float v : tensor.data()) {
        out.add((double) v);
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  private static void assertClose(String what, double[] expected, double[] actual, Tolerance tol) {
    assertEquals(expected.length, actual.length, what);
    double worst = 0;
    int at = -1;
    for (int j = 0; j < expected.length; j++) {
      double err = Math.abs(actual[j] - expected[j]);
      if (!tol.accepts(actual[j], expected[j]) && err > worst) {
        worst = err;
        at = j;
      }
    }
    if (at >= 0) {
      fail(what + ": index " + at + " expected " + expected[at] + " but was " + actual[at]);
    }
  }
}
