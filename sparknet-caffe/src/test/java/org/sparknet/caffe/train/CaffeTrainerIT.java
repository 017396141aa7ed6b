package org.sparknet.caffe.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.checkpoint.CheckpointDir;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.ndarray.NDArray;
import org.sparknet.testing.Tolerance;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * The trainer running real CaffeNets on Spark {@code local[2]} and real Fashion-MNIST images,
 * compared with plain CaffeNets trained alone on the same batches in the same order (the trainer's
 * own {@link ShardFeeder} order, reproduced here with the same seed and partition).
 *
 * <p>The net is a small LeNet (conv 5x5 x4, max pool, inner product 10): the same layer types as
 * LeNet at 1/70 of its weights, so that each test takes seconds.
 */
class CaffeTrainerIT {
  private static final long SEED = 11;

  /** Caffe's examples/mnist/lenet_solver.prototxt settings: momentum, weight decay, "inv". */
  static final String LENET_SOLVER =
      "base_lr: 0.01\nmomentum: 0.9\nweight_decay: 0.0005\n"
          + "lr_policy: \"inv\"\ngamma: 0.0001\npower: 0.75\n";

  /** Plain SGD: no momentum, no weight decay, a fixed rate. */
  static final String PLAIN_SGD = "base_lr: 0.05\nlr_policy: \"fixed\"\n";

  private static final Map<String, List<List<Example>>> DATA = new ConcurrentHashMap<>();
  private static List<Example> images;
  private static JavaSparkContext sc;

  @BeforeAll
  static void setUp() {
    CaffeRuntime.load(); // a few bytes allocated once: not a leak of the first test
    images = FashionMnist.load(true, 200);
    sc = LocalSpark.context();
  }

  static String miniLeNet(int batch) {
    return smallLeNet("minilenet", batch, 4);
  }

  /**
   * LeNet's layer types at a fraction of its size: one convolution of {@code filters} filters, max
   * pooling, one inner product and the loss; {@code extra} (prototxt layers) is appended.
   */
  static String smallLeNet(String name, int batch, int filters, String... extra) {
    return "name: \""
        + name
        + "\"\n"
        + "layer { name: \"in\" type: \"Input\" top: \"data\" top: \"label\"\n"
        + "  input_param { shape { dim: "
        + batch
        + " dim: 1 dim: 28 dim: 28 } shape { dim: "
        + batch
        + " } } }\n"
        + "layer { name: \"conv1\" type: \"Convolution\" bottom: \"data\" top: \"conv1\"\n"
        + "  convolution_param { num_output: "
        + filters
        + " kernel_size: 5\n"
        + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
        + "layer { name: \"pool1\" type: \"Pooling\" bottom: \"conv1\" top: \"pool1\"\n"
        + "  pooling_param { pool: MAX kernel_size: 2 stride: 2 } }\n"
        + "layer { name: \"ip1\" type: \"InnerProduct\" bottom: \"pool1\" top: \"ip1\"\n"
        + "  inner_product_param { num_output: 10\n"
        + "    weight_filler { type: \"xavier\" } bias_filler { type: \"constant\" } } }\n"
        + "layer { name: \"loss\" type: \"SoftmaxWithLoss\" bottom: \"ip1\" bottom: \"label\""
        + " top: \"loss\" }\n"
        + String.join("", extra);
  }

  static NetDefinition definition(String solver, int batch) {
    return NetDefinition.caffe(solver, miniLeNet(batch), null).withSeed(3);
  }

  /** An RDD with exactly these partitions, built on the executors (which share this JVM). */
  static JavaRDD<Example> rdd(List<List<Example>> parts) {
    String key = UUID.randomUUID().toString();
    DATA.put(key, parts);
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      ids.add(i);
    }
    return sc.parallelize(ids, parts.size()).flatMap(i -> DATA.get(key).get(i).iterator());
  }

  static TrainerConfig.Builder config(NetDefinition def, int tau, int workers) {
    return TrainerConfig.builder()
        .setNetDefinition(def)
        .optTau(tau)
        .optWorkers(workers)
        .optSeed(SEED);
  }

  /** The trainer's feeder for partition {@code p} from its start. */
  static ShardFeeder feeder(List<Example> part, int p) {
    return new ShardFeeder(DataShard.pack(p, part.iterator()), "data", "label", SEED, p, 0);
  }

  static void assertWeights(WeightCollection expected, WeightCollection actual, Tolerance tol) {
    String diff = actual.differenceFrom(expected, tol.rtol(), tol.atol());
    if (diff != null) {
      fail(diff);
    }
  }

  @Test
  void onePartitionWithTauStepsEqualsACaffeNetTrainedAlone() {
    // lenet_solver: momentum, weight decay and the "inv" schedule carry across rounds only if the
    // worker's solver persists between rounds. 3 rounds of 5 steps of 8 = 120 > 100 examples,
    // so the feeder also crosses into a reshuffled second epoch.
    NetDefinition def = definition(LENET_SOLVER, 8);
    List<Example> part = images.subList(0, 100);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, config(def, 5, 1).build());
        CaffeNet alone = CaffeNet.create(def)) {
      alone.setWeights(t.getWeights());
      t.setTrainingData(rdd(List.of(part)));
      ShardFeeder f = feeder(part, 0);
      for (int r = 1; r <= 3; r++) {
        t.trainRound();
        alone.train(5, f);
        // Same ops on the same data in the same order on one BLAS thread: bit for bit.
        assertWeights(alone.getWeights(), t.getWeights(), Tolerance.EXACT);
      }
      assertEquals(15, alone.iteration());
      assertEquals(15, t.iteration());
    }
  }

  @Test
  void twoPartitionsOfBatch8WithTauOneEqualOneCaffeNetOfBatch16() {
    NetDefinition def = definition(PLAIN_SGD, 8);
    List<Example> p0 = images.subList(0, 100);
    List<Example> p1 = images.subList(100, 200);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, config(def, 1, 2).build());
        CaffeNet big = CaffeNet.create(definition(PLAIN_SGD, 16))) {
      WeightCollection start = t.getWeights();
      big.setWeights(start);
      t.setTrainingData(rdd(List.of(p0, p1)));
      ShardFeeder f0 = feeder(p0, 0);
      ShardFeeder f1 = feeder(p1, 1);
      // rows 0-7 of the batch of 16 are partition 0's batch, rows 8-15 partition 1's
      BatchFeeder both =
          in -> {
            NDArray data = in.get("data");
            NDArray label = in.get("label");
            f0.fill(
                Map.of(
                    "data", data.subArray(new int[] {0, 0, 0, 0}, new int[] {8, 1, 28, 28}),
                    "label", label.subArray(new int[] {0}, new int[] {8})));
            f1.fill(
                Map.of(
                    "data", data.subArray(new int[] {8, 0, 0, 0}, new int[] {8, 1, 28, 28}),
                    "label", label.subArray(new int[] {8}, new int[] {8})));
          };
      for (int r = 1; r <= 5; r++) {
        t.trainRound();
        big.train(1, both);
        // Sums over 16 rows in another order, and a mean of two updates: float rounding only.
        assertWeights(big.getWeights(), t.getWeights(), Tolerance.FLOAT);
      }
      assertTrue(!t.getWeights().allClose(start, 1e-3, 0), "5 steps of lr 0.05 moved the weights");
    }
  }

  @Test
  void aWorkerOfTwoSolversEqualsOneCaffeNetOfTwiceTheBatch() {
    // Hybrid mode (optGroupSize): two solvers of batch 8 that average after every step, with
    // lenet_solver's momentum and weight decay, follow one solver of batch 16 on the same 16
    // examples a step: the mean of two momentum sums is the momentum sum of the mean gradient.
    // 3 rounds of 3 steps of 16 = 144 > 100 examples: the feeder also crosses into a new epoch.
    NetDefinition def = definition(LENET_SOLVER, 8);
    List<Example> part = images.subList(0, 100);
    try (SparkNetTrainer t = new SparkNetTrainer(sc, config(def, 3, 1).optGroupSize(2).build());
        CaffeNet big = CaffeNet.create(definition(LENET_SOLVER, 16))) {
      WeightCollection start = t.getWeights();
      big.setWeights(start);
      t.setTrainingData(rdd(List.of(part)));
      ShardFeeder f = feeder(part, 0);
      // rows 0-7 are member 0's batch, rows 8-15 member 1's: the order the group takes them in
      BatchFeeder twice =
          in -> {
            for (int half = 0; half < 2; half++) {
              f.fill(
                  Map.of(
                      "data",
                      in.get("data")
                          .subArray(new int[] {8 * half, 0, 0, 0}, new int[] {8, 1, 28, 28}),
                      "label",
                      in.get("label").subArray(new int[] {8 * half}, new int[] {8})));
            }
          };
      for (int r = 1; r <= 3; r++) {
        var m = t.trainRound();
        big.train(3, twice);
        assertEquals(48, m.examples(), "a round of 3 group steps takes 3 x 2 batches of 8");
        // Sums over 16 rows in another order, and a mean of two updates: float rounding only.
        assertWeights(big.getWeights(), t.getWeights(), Tolerance.FLOAT);
      }
      assertEquals(9, big.iteration());
      assertEquals(9, t.iteration());
      assertTrue(!t.getWeights().allClose(start, 1e-3, 0), "9 steps moved the weights");
    }
  }

  @Test
  void checkpointResumeWithMomentumEqualsAnUninterruptedRun(@TempDir Path dir) throws Exception {
    NetDefinition def = definition(LENET_SOLVER, 8);
    List<List<Example>> parts = List.of(images.subList(0, 100), images.subList(100, 200));
    WeightCollection uninterrupted;
    List<WeightCollection> uninterruptedWorkers;
    try (SparkNetTrainer a =
        new SparkNetTrainer(sc, config(def, 3, 2).optDeterministic(true).build())) {
      a.setTrainingData(rdd(parts));
      a.train(4);
      uninterrupted = a.getWeights();
      uninterruptedWorkers = a.getWorkerWeights();
    }
    String ckpt = dir.resolve("ckpt").toUri().toString();
    TrainerConfig cfg =
        config(def, 3, 2)
            .optDeterministic(true)
            .optCheckpointDir(ckpt)
            .optCheckpointEvery(1)
            .build();
    try (SparkNetTrainer b = new SparkNetTrainer(sc, cfg)) {
      b.setTrainingData(rdd(parts));
      b.train(2); // stop after round 2
    }
    Checkpoint saved = new CheckpointDir(ckpt, sc.hadoopConfiguration()).readLatest();
    assertEquals(2, saved.round());
    assertEquals(2, saved.solverStates().length);
    for (int p = 0; p < 2; p++) {
      assertEquals(6, saved.solverStates()[p].iteration());
      assertTrue(saved.solverStates()[p].history().numFloats() > 0);
    }
    try (SparkNetTrainer c = new SparkNetTrainer(sc, cfg)) {
      assertEquals(2, c.round());
      c.setTrainingData(rdd(parts));
      c.train(2);
      assertEquals(4, c.round());
      assertWeights(uninterrupted, c.getWeights(), Tolerance.EXACT);
      for (int p = 0; p < 2; p++) {
        assertWeights(uninterruptedWorkers.get(p), c.getWorkerWeights().get(p), Tolerance.EXACT);
      }
    }
    // Contrast: the same checkpoint without the solver states loses momentum and schedule.
    String bare = dir.resolve("bare").toUri().toString();
    new CheckpointDir(bare, sc.hadoopConfiguration())
        .write(
            new Checkpoint(
                saved.fingerprint(),
                saved.round(),
                saved.iteration(),
                saved.seed(),
                saved.positions(),
                saved.layout(),
                saved.weights(),
                null,
                null));
    try (SparkNetTrainer d =
        new SparkNetTrainer(
            sc, config(def, 3, 2).optDeterministic(true).optCheckpointDir(bare).build())) {
      d.setTrainingData(rdd(parts));
      d.train(2);
      assertNotEquals(null, uninterrupted.differenceFrom(d.getWeights(), 1e-4, 0));
    }
  }
}
