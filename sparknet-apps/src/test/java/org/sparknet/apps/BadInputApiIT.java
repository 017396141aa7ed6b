package org.sparknet.apps;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.testing.spark.LocalSpark;

/**
 * The bad-input table through the Java API (docs/bad-input.md): TrainerConfig, NetProvider /
 * CaffeNet, SparkNetTrainer and CaffeModels on Caffe's LeNet (Input-fed, 28x28) and Fashion-MNIST
 * examples on local[2]. Each case throws {@link IllegalArgumentException} with a message naming the
 * culprit, Caffe never sees the bad input (the JVM lives on), and checkpoint directories involved
 * are byte for byte unchanged.
 */
class BadInputApiIT {
  @TempDir static Path tmp;
  private static NetDefinition lenet;
  private static List<Example> examples;
  private static Path checkpoint;
  private static Path otherModel;
  private static int lenets;

  @BeforeAll
  static void fixtures() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 256, 10);
    examples =
        IdxDataset.open(
                data.resolve("train-images-idx3-ubyte"),
                data.resolve("train-labels-idx1-ubyte"),
                10)
            .read(0, 256, 1f / 256);
    lenet = lenet("num_output: 20");
    // A real checkpoint of this net, written with 2 workers.
    checkpoint = tmp.resolve("ckpt");
    try (SparkNetTrainer t =
        new SparkNetTrainer(sc(), config(lenet).optCheckpointDir(checkpoint.toString()).build())) {
      t.setTrainingData(rdd(examples, 2));
      t.trainRound();
    }
    // The .caffemodel of another net: LeNet with 10 conv1 filters.
    otherModel = tmp.resolve("other.caffemodel");
    try (CaffeNet other = CaffeNet.create(lenet("num_output: 10"))) {
      CaffeModels.save(other, otherModel, false);
    }
  }

  /** Caffe's LeNet with its Data layers (fed from Spark, sample shape 1x28x28), solver inline. */
  private static NetDefinition lenet(String conv1Outputs) throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("lenet-" + (++lenets)));
    Path solver = CliFixtures.caffeLeNet(dir);
    String solverText =
        Files.readString(solver).replaceAll("(?m)^net:.*$", "").replace("solver_mode: GPU", "");
    String net =
        Files.readString(solver.resolveSibling("examples/mnist/lenet_train_test.prototxt"))
            .replaceFirst("num_output: 20", conv1Outputs)
            .replace("scale: 0.00390625", "scale: 1");
    return NetDefinition.caffe(solverText, net, List.of(1, 28, 28)).withSeed(42);
  }

  private static JavaSparkContext sc() {
    return LocalSpark.context();
  }

  private static TrainerConfig.Builder config(NetDefinition def) {
    return TrainerConfig.builder().setNetDefinition(def).optWorkers(2).optTau(1).optSeed(7);
  }

  private static JavaRDD<Example> rdd(List<Example> list, int partitions) {
    return sc().parallelize(new ArrayList<>(list), partitions);
  }

  private static NetDefinition withNet(String from, String to) {
    assertTrue(lenet.netText().contains(from), from);
    return new NetDefinition(
        "caffe",
        lenet.solverText(),
        lenet.netText().replaceFirst(java.util.regex.Pattern.quote(from), to),
        lenet.sampleShape(),
        42,
        "cpu");
  }

  /** Trains one round of LeNet on {@code data}; the case passes when it throws. */
  private static Executable train(List<Example> data, int partitions) {
    return () -> {
      try (SparkNetTrainer t = new SparkNetTrainer(sc(), config(lenet).build())) {
        t.setTrainingData(rdd(data, partitions));
        t.trainRound();
      }
    };
  }

  /** The first batch (64 examples, all fed in round 1) with example {@code index} replaced. */
  private static List<Example> withExample(int index, float[] features, float label) {
    List<Example> l = new ArrayList<>(examples.subList(0, 64));
    l.set(index, new Example(features, label));
    return l;
  }

  private static float[] pixels(float value, int at) {
    float[] f = examples.get(0).features().clone();
    f[at] = value;
    return f;
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        row("tau 0", () -> TrainerConfig.builder().optTau(0), "tau", "must be > 0"),
        row("tau negative", () -> TrainerConfig.builder().optTau(-5), "tau", "was -5"),
        row("tauSeconds 0", () -> TrainerConfig.builder().optTauSeconds(0), "tauSeconds"),
        row("workers 0", () -> TrainerConfig.builder().optWorkers(0), "workers", "was 0"),
        row("workers negative", () -> TrainerConfig.builder().optWorkers(-1), "workers"),
        row(
            "deterministic with timed tau",
            () -> config(lenet).optTauSeconds(1).optDeterministic(true).build(),
            "Deterministic",
            "optTau"),
        row(
            "malformed prototxt",
            () -> NetProvider.build(withNet("num_output: 50", "num_output: ")).close(),
            "line ",
            "column "),
        row(
            "unknown layer type",
            () -> NetProvider.build(withNet("\"Pooling\"", "\"Poolin\"")).close(),
            "unknown layer type 'Poolin'"),
        row(
            "missing bottom",
            () -> NetProvider.build(withNet("bottom: \"conv2\"", "bottom: \"conv9\"")).close(),
            "reads bottom 'conv9'"),
        row(
            "wrong top count",
            () ->
                NetProvider.build(withNet("top: \"loss\"", "top: \"loss\" top: \"a\" top: \"b\""))
                    .close(),
            "SoftmaxWithLoss",
            "has 3"),
        row(
            "GPU requested on a CPU-only build",
            () -> NetProvider.build(lenet.withDevice("gpu:0")).close(),
            "'gpu:0'",
            "CPU-only"),
        row(
            "device id out of range",
            () -> NetProvider.build(lenet.withDevice("gpu:99")).close(),
            "'gpu:99'"),
        row("malformed device", () -> lenet.withDevice("gpu:-1"), "'gpu:-1'"),
        row(
            "solver naming a net file",
            () ->
                NetProvider.build(
                        NetDefinition.caffe(
                            "net: \"missing.prototxt\"\n" + lenet.solverText(),
                            null,
                            List.of(1, 28, 28)))
                    .close(),
            "missing.prototxt"),
        row("empty dataset", train(List.of(), 2), "training data is empty"),
        row(
            "batch larger than the data",
            train(examples.subList(0, 10), 2),
            "10 examples",
            "fewer than one batch"),
        // A build without the check took the data ("Expected java.lang.IllegalArgumentException
        // to be thrown, but nothing was thrown") and would have built a net for each worker.
        row(
            "more workers than examples",
            () -> {
              try (SparkNetTrainer t =
                  new SparkNetTrainer(sc(), config(lenet).optWorkers(300).build())) {
                t.setTrainingData(rdd(examples, 2));
              }
            },
            "256 examples, fewer than one for each of the 300 workers",
            "use at most 4 workers"),
        row(
            "features of another size",
            train(withExample(5, new float[100], 1), 2),
            "100 floats in example 5",
            "784"),
        row(
            "NaN in features",
            train(withExample(0, pixels(Float.NaN, 17), 1), 1),
            "NaN at flat index",
            "'data'"),
        row(
            "infinity in features",
            train(withExample(0, pixels(Float.POSITIVE_INFINITY, 3), 1), 1),
            "Infinity at flat index"),
        row(
            "label out of range",
            train(withExample(0, pixels(0, 0), 12), 1),
            "label 12.0",
            "[0, 10)"),
        row("negative label", train(withExample(0, pixels(0, 0), -1), 1), "label -1.0"),
        row(
            "checkpoint of another net",
            () ->
                new SparkNetTrainer(
                        sc(),
                        config(lenet("num_output: 10"))
                            .optCheckpointDir(checkpoint.toString())
                            .build())
                    .close(),
            "another net definition"),
        row(
            "checkpoint of another worker count",
            () ->
                new SparkNetTrainer(
                        sc(),
                        config(lenet).optWorkers(3).optCheckpointDir(checkpoint.toString()).build())
                    .close(),
            "2 workers",
            "optWorkers(2)"),
        row(
            "restore from a directory without a model",
            () -> {
              try (SparkNetTrainer t = new SparkNetTrainer(sc(), config(lenet).build())) {
                t.restore(Files.createDirectories(tmp.resolve("nothing")).toString());
              }
            },
            "No SparkNet model"),
        row(
            "corrupt .caffemodel",
            () -> {
              byte[] junk = new byte[4096];
              new Random(3).nextBytes(junk);
              Path p = Files.write(tmp.resolve("junk.caffemodel"), junk);
              try (CaffeNet net = CaffeNet.create(lenet)) {
                CaffeModels.load(net, p);
              }
            },
            "junk.caffemodel"),
        row(
            ".caffemodel of another net",
            () -> {
              try (CaffeNet net = CaffeNet.create(lenet)) {
                CaffeModels.load(net, otherModel);
              }
            },
            "conv1"),
        row(
            "weights of another net",
            () -> {
              try (CaffeNet other = CaffeNet.create(lenet("num_output: 10"));
                  SparkNetTrainer t = new SparkNetTrainer(sc(), config(lenet).build())) {
                t.setWeights(other.getWeights());
              }
            },
            "conv1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badInputThrowsIllegalArgumentNamingTheCulprit(
      String name, Executable action, List<String> expected) throws Exception {
    Map<String, String> before = snapshot(checkpoint);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, action, name);
    for (String part : expected) {
      assertTrue(
          e.getMessage().contains(part), name + ": expected '" + part + "' in: " + e.getMessage());
    }
    assertEquals(before, snapshot(checkpoint), name + ": the checkpoint directory changed");
  }

  /** Not bad input: partitions without data return nothing and count nothing; the one trains. */
  @Test
  void everyPartitionEmptyButOneTrainsOnThatOne() {
    List<Example> flat = new ArrayList<>(examples);
    // parallelize slices evenly, so build three partitions explicitly.
    JavaRDD<Example> rdd =
        sc().parallelize(List.of(0, 1, 2), 3)
            .mapPartitionsWithIndex(
                (p, it) -> (p == 1 ? flat : List.<Example>of()).iterator(), true);
    try (SparkNetTrainer t = new SparkNetTrainer(sc(), config(lenet).optWorkers(3).build())) {
      t.setTrainingData(rdd);
      RoundMetrics m = t.trainRound();
      assertEquals(64, m.examples(), "one batch of the one non-empty partition");
      assertEquals("[0, 256, 0]", java.util.Arrays.toString(t.trainingPartitionSizes()));
      assertTrue(Double.isFinite(m.meanLoss()));
    }
  }

  private static Arguments row(String name, Executable action, String... expected) {
    return Arguments.of(name, action, List.of(expected));
  }

  private static Map<String, String> snapshot(Path dir) throws Exception {
    Map<String, String> m = new TreeMap<>();
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        m.put(p.toString(), HexFormat.of().formatHex(sha.digest(Files.readAllBytes(p))));
      }
    }
    return m;
  }
}
