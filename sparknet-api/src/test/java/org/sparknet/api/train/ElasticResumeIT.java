package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;
import static org.sparknet.api.train.SparkNetTrainerIT.config;
import static org.sparknet.api.train.SparkNetTrainerIT.softmax;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.checkpoint.CheckpointDir;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.testnet.SoftmaxNet;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Resuming elastic averaging (EASGD) resumes the workers' own weights: a checkpoint holds them, and
 * the first round after a resume hands each worker its own. On real Fashion-MNIST rows, in local
 * Spark, with the pure-Java softmax net (momentum 0.9, so the solver state is resumed too) and
 * deterministic mode, a run checkpointed after round 2 and resumed in a new trainer reaches the
 * centre and the workers' weights of an uninterrupted run bit for bit, round by round.
 */
class ElasticResumeIT {
  private static List<Example> rows;
  private static JavaSparkContext sc;
  private int liveBefore;

  @BeforeAll
  static void setUp() {
    rows = FashionMnist.load(true, 160);
    sc = LocalSpark.context();
  }

  @BeforeEach
  void countNets() {
    liveBefore = SoftmaxNet.live();
  }

  @AfterEach
  void everyNetClosed() {
    assertEquals(liveBefore, SoftmaxNet.live(), "nets left open by the test");
  }

  private static JavaRDD<Example> data() {
    return LocalSpark.partitioned(List.of(rows.subList(0, 90), rows.subList(90, 160)));
  }

  /** Centre and workers' weights after rounds 3 and 4 of one run. */
  private record Run(WeightCollection[] centre, List<List<WeightCollection>> workers) {}

  private static TrainerConfig.Builder elastic(NetDefinition def) {
    return config(def, 3, 2).optAveraging(Averaging.elastic(0.1)).optDeterministic(true);
  }

  /**
   * Mutations: the checkpoint written without the workers' weights (TrainerCheckpoints.write
   * passing null for them) gave "the checkpoint holds the workers' own weights ==> expected: not
   * null"; the worker ignoring its resumed weights (Worker.train without {@code workerWeightsOf})
   * gave "centre after round 3: ... index 2: this has 3.8265807E-5, the other has 3.807523E-5"; the
   * resumed weights kept pending after the first round (TrainerState.completeRound not clearing
   * them, so round 4 set the workers back) gave "centre after round 4: ... 3.7571477E-5 ...
   * 3.6949776E-5".
   */
  @Test
  void aResumedRunReachesTheCentreAndTheWorkersOfAnUninterruptedOne(@TempDir Path dir) {
    NetDefinition def = softmax(8, 0.1, 0.9);
    Run uninterrupted = uninterrupted(def);
    String ckpt = dir.resolve("ckpt").toUri().toString();
    TrainerConfig cfg = elastic(def).optCheckpointDir(ckpt).optCheckpointEvery(1).build();
    List<WeightCollection> workersAt2 = twoRounds(cfg);
    Checkpoint saved = readLatest(ckpt);
    assertEquals(2, saved.round());
    assertNotNull(saved.workerWeights(), "the checkpoint holds the workers' own weights");
    WeightLayout layout = saved.layout();
    for (int p = 0; p < 2; p++) {
      same(
          "checkpointed worker " + p,
          workersAt2.get(p),
          layout.toCollection(saved.workerWeights()[p]));
    }
    try (SparkNetTrainer c = new SparkNetTrainer(sc, cfg)) {
      assertEquals(2, c.round());
      c.setTrainingData(data());
      Run resumed = continued(c);
      for (int r = 0; r < 2; r++) {
        String round = "after round " + (r + 3);
        same("centre " + round, uninterrupted.centre()[r], resumed.centre()[r]);
        for (int p = 0; p < 2; p++) {
          same(
              "worker " + p + " " + round,
              uninterrupted.workers().get(r).get(p),
              resumed.workers().get(r).get(p));
        }
      }
    }
  }

  /**
   * The contrast that shows what the workers' weights carry: the same checkpoint without them
   * resumes every worker from the centre, and the workers end elsewhere. (Were the workers' own
   * weights no different from the centre after two rounds, the test above could not fail.)
   *
   * <p>Mutation: elastic workers starting every round from the centre (Elastic.workersKeepWeights
   * false) gave "expected: not equal but was: null" here.
   */
  @Test
  void withoutTheWorkersWeightsTheWorkersRestartFromTheCentre(@TempDir Path dir) {
    NetDefinition def = softmax(8, 0.1, 0.9);
    Run uninterrupted = uninterrupted(def);
    String ckpt = dir.resolve("ckpt").toUri().toString();
    TrainerConfig cfg = elastic(def).optCheckpointDir(ckpt).optCheckpointEvery(2).build();
    twoRounds(cfg);
    Checkpoint s = readLatest(ckpt);
    String bare = dir.resolve("bare").toUri().toString();
    try {
      new CheckpointDir(bare, sc.hadoopConfiguration())
          .write(
              new Checkpoint(
                  s.fingerprint(),
                  s.round(),
                  s.iteration(),
                  s.seed(),
                  s.positions(),
                  s.layout(),
                  s.weights(),
                  s.solverStates(),
                  null));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    try (SparkNetTrainer d = new SparkNetTrainer(sc, elastic(def).optCheckpointDir(bare).build())) {
      d.setTrainingData(data());
      Run restarted = continued(d);
      assertNotEquals(
          null,
          uninterrupted
              .workers()
              .get(0)
              .get(0)
              .differenceFrom(restarted.workers().get(0).get(0), 1e-6, 0),
          "workers restarted from the centre end where the resumed ones do");
    }
  }

  private static void same(String what, WeightCollection expected, WeightCollection actual) {
    String diff = actual.differenceFrom(expected, 0, 0);
    if (diff != null) {
      fail(what + ": " + diff);
    }
  }

  /** An uninterrupted run of four rounds. */
  private static Run uninterrupted(NetDefinition def) {
    try (SparkNetTrainer a = new SparkNetTrainer(sc, elastic(def).build())) {
      a.setTrainingData(data());
      a.train(2);
      return continued(a);
    }
  }

  /** Two rounds of a run that checkpoints; returns the workers' weights after them. */
  private static List<WeightCollection> twoRounds(TrainerConfig cfg) {
    try (SparkNetTrainer b = new SparkNetTrainer(sc, cfg)) {
      b.setTrainingData(data());
      b.train(2);
      return b.getWorkerWeights();
    }
  }

  /** Runs rounds 3 and 4, recording the centre and the workers after each. */
  private static Run continued(SparkNetTrainer t) {
    WeightCollection[] centre = new WeightCollection[2];
    List<WeightCollection> w3;
    t.trainRound();
    centre[0] = t.getWeights();
    w3 = t.getWorkerWeights();
    t.trainRound();
    centre[1] = t.getWeights();
    return new Run(centre, List.of(w3, t.getWorkerWeights()));
  }

  private static Checkpoint readLatest(String dir) {
    try {
      return new CheckpointDir(dir, sc.hadoopConfiguration()).readLatest();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
