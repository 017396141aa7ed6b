package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.checkpoint.CheckpointDir;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;

/**
 * The bad-input table through the CLI (docs/bad-input.md lists it with the API's): each case exits
 * 2 with one line that names the culprit, the JVM survives (no hs_err_pid file, Caffe never saw the
 * bad input), and an existing output directory and checkpoint directory are left byte for byte as
 * they were. Most cases are caught before Spark starts; those that need the data or the net (label
 * range, input shape, too little data, a foreign checkpoint) run on local[2].
 */
class BadInputCliIT {
  @TempDir static Path tmp;
  private static Fx fx;
  private static Map<String, String> guardedBefore;

  /** Paths the cases are built from: valid inputs, and the directories that must stay untouched. */
  record Fx(
      Path solver,
      Path net,
      String train,
      String test,
      Path data,
      Path output,
      Path foreignCheckpoint,
      Path otherNetModel,
      Path dir) {
    String[] train(String... more) {
      List<String> a =
          new ArrayList<>(
              List.of(
                  "train",
                  "--solver",
                  solver.toString(),
                  "--train",
                  train,
                  "--test",
                  test,
                  "--workers",
                  "2",
                  "--tau",
                  "2",
                  "--rounds",
                  "1",
                  "--output",
                  output.toString()));
      a.addAll(Arrays.asList(more));
      return a.toArray(new String[0]);
    }

    /** {@link #train} with option {@code name}'s value replaced (or removed when value is null). */
    String[] trainWith(String name, String value, String... more) {
      List<String> a = new ArrayList<>(Arrays.asList(train(more)));
      int i = a.indexOf(name);
      if (value == null) {
        a.remove(i + 1);
        a.remove(i);
      } else {
        a.set(i + 1, value);
      }
      return a.toArray(new String[0]);
    }

    String[] test(String weights) {
      return new String[] {
        "test", "--solver", solver.toString(), "--weights", weights, "--test", test
      };
    }
  }

  @BeforeAll
  static void fixtures() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 200, 100);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    Path net = solver.resolveSibling("examples/mnist/lenet_train_test.prototxt");
    Path output = Files.createDirectories(tmp.resolve("existing-output"));
    Files.writeString(output.resolve("metrics.jsonl"), "{\"round\":1}\n");
    // A checkpoint written for another net (real format, foreign fingerprint).
    Path foreign = tmp.resolve("foreign-checkpoint");
    float[] w = {1, 2, 3};
    new CheckpointDir(foreign.toUri().toString(), new Configuration())
        .write(
            new Checkpoint(
                "caffe:0123456789abcdef01234567",
                3,
                30,
                42,
                new long[] {10, 10},
                WeightLayout.of(List.of("fc"), List.of(List.of(org.sparknet.ndarray.Shape.of(3)))),
                w,
                null,
                null));
    // A .caffemodel of another net: LeNet with 10 instead of 20 conv1 filters.
    Path otherDir = tmp.resolve("other");
    Path otherSolver = CliFixtures.caffeLeNet(otherDir);
    Path otherNet = otherSolver.resolveSibling("examples/mnist/lenet_train_test.prototxt");
    Files.writeString(
        otherNet, Files.readString(otherNet).replaceFirst("num_output: 20", "num_output: 10"));
    Path otherModel = tmp.resolve("other.caffemodel");
    try (CaffeNet caffe =
        CaffeNet.create(CaffeFiles.read(otherSolver, null).definition(List.of(1, 28, 28), 42))) {
      CaffeModels.save(caffe, otherModel, false);
    }
    fx =
        new Fx(
            solver,
            net,
            data.resolve("train-images-idx3-ubyte").toString(),
            data.resolve("t10k-images-idx3-ubyte").toString(),
            data,
            output,
            foreign,
            otherModel,
            tmp);
    guardedBefore = snapshot(output, foreign);
  }

  @AfterAll
  static void noCrashFiles() throws IOException {
    for (Path dir : new Path[] {Path.of("").toAbsolutePath(), tmp}) {
      try (Stream<Path> s = Files.list(dir)) {
        List<Path> crashes =
            s.filter(p -> p.getFileName().toString().startsWith("hs_err_pid")).toList();
        assertTrue(crashes.isEmpty(), "JVM crash files: " + crashes);
      }
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        // ---- numbers and flags
        row("tau 0", f -> f.trainWith("--tau", "0"), "tau", "must be > 0", "was 0"),
        row("tau negative", f -> f.trainWith("--tau", "-3"), "tau", "was -3"),
        row("tau-seconds 0", f -> f.trainWith("--tau", null, "--tau-seconds", "0"), "tauSeconds"),
        row("workers 0", f -> f.trainWith("--workers", "0"), "--workers", "workers=0"),
        row("workers negative", f -> f.trainWith("--workers", "-2"), "workers=-2"),
        // Before Spark starts. A build without LocalNetMemory started Spark with a million local
        // workers: the test JVM died ("unable to create native thread: possibly out of memory").
        row(
            "more local workers than the memory holds",
            f -> f.trainWith("--workers", "1000000"),
            "--workers 1000000: a local run keeps every worker's net in this JVM",
            "use at most"),
        row("rounds 0", f -> f.trainWith("--rounds", "0"), "rounds=0"),
        row("group size 0", f -> f.train("--group-size", "0"), "--group-size", "got 0"),
        row(
            "tau and tau-seconds together",
            f -> f.train("--tau-seconds", "1"),
            "mutually exclusive"),
        row("alpha without easgd", f -> f.train("--alpha", "0.5"), "--alpha", "easgd"),
        row(
            "deterministic with tau-seconds",
            f -> f.trainWith("--tau", null, "--tau-seconds", "1", "--deterministic"),
            "--deterministic",
            "--tau-seconds"),
        row("unknown averaging", f -> f.train("--averaging", "mean"), "--averaging", "'mean'"),
        row(
            "unknown format",
            f -> f.train("--format", "tfrecord"),
            "tfrecord",
            "supported formats: idx, cifar, cifar100, images, parquet"),
        row(
            "IDX file read as CIFAR",
            f -> f.train("--format", "cifar"),
            "CIFAR file",
            "train-images-idx3-ubyte",
            "not a positive multiple of the 3,073-byte"),
        row(
            "truncated CIFAR batch",
            f -> onCifar(f, truncatedCifar(f)),
            "short.bin",
            "9,209 bytes",
            "truncated"),
        row("scale 0", f -> f.train("--scale", "0"), "--scale"),
        row("sample shape with 0", f -> f.train("--sample-shape", "1,0,28"), "--sample-shape"),
        // ---- files
        row(
            "missing solver",
            f -> f.trainWith("--solver", f.dir().resolve("none.prototxt").toString()),
            "none.prototxt"),
        row(
            "solver naming a missing net",
            f -> f.trainWith("--solver", lonelySolver(f).toString()),
            "lonely",
            "lenet_train_test.prototxt"),
        row(
            "missing training data",
            f -> f.trainWith("--train", f.dir().resolve("no-images-idx3-ubyte").toString()),
            "no-images-idx3-ubyte"),
        // Spark's Hadoop client jars name S3AFileSystem but lack it. A broken build that let
        // Hadoop's RuntimeException through exited 1: "training failed: java.lang.RuntimeException:
        // java.lang.ClassNotFoundException: Class org.apache.hadoop.fs.s3a.S3AFileSystem not found"
        row(
            "s3a URI without hadoop-aws",
            f -> f.trainWith("--train", "s3a://sparknet-bucket/fashion/train-images-idx3-ubyte"),
            "s3a://sparknet-bucket/fashion/train-images-idx3-ubyte",
            "spark-submit --packages org.apache.hadoop:hadoop-aws:3.5."),
        row(
            "data path is a directory",
            f -> f.trainWith("--train", f.dir().toString()),
            f0 -> f0.dir().toString()),
        row(
            "missing labels file",
            f -> f.trainWith("--train", idx(f, "nolabels-images-idx3-ubyte", 10, 10, false)),
            "nolabels-labels-idx1-ubyte"),
        row(
            "IDX with a bad magic number",
            f -> f.trainWith("--train", corrupt(f, "magic-images-idx3-ubyte", 0, 0x7f)),
            "magic-images-idx3-ubyte"),
        row(
            "truncated IDX images",
            f -> f.trainWith("--train", truncated(f, "cut-images-idx3-ubyte")),
            "cut-images-idx3-ubyte"),
        row(
            "image and label counts differ",
            f -> f.trainWith("--train", idx(f, "odd-images-idx3-ubyte", 10, 9, true)),
            "odd-images-idx3-ubyte",
            "odd-labels-idx1-ubyte"),
        row(
            "empty dataset",
            f -> f.trainWith("--train", idx(f, "empty-images-idx3-ubyte", 0, 0, true)),
            "empty-images-idx3-ubyte",
            "0 records"),
        row(
            "malformed net prototxt",
            f -> f.train("--net", netWith(f, "broken.prototxt", "num_output: 20", "num_output: ")),
            "line ",
            "column"),
        row(
            "unknown layer type",
            f ->
                f.train("--net", netWith(f, "typo.prototxt", "\"Convolution\"", "\"Convolutoin\"")),
            "Convolutoin"),
        row(
            "missing bottom",
            f ->
                f.train(
                    "--net",
                    netWith(f, "bottom.prototxt", "bottom: \"pool1\"", "bottom: \"poo1\"")),
            "poo1"),
        row(
            "wrong top count",
            f ->
                f.train(
                    "--net",
                    netWith(
                        f,
                        "tops.prototxt",
                        "top: \"loss\"",
                        "top: \"loss\" top: \"a\" top: \"b\"")),
            "loss",
            "top"),
        row(
            "existing final.caffemodel",
            f -> f.trainWith("--output", existingModelDir(f).toString()),
            "final.caffemodel",
            "already exists"),
        row("missing weights", f -> f.test(f.dir().resolve("gone.caffemodel").toString()), "gone"),
        row(
            "corrupt .caffemodel",
            f -> f.test(garbage(f, "junk.caffemodel").toString()),
            "junk.caffemodel"),
        row(
            ".caffemodel of another net (train --weights)",
            f -> f.train("--weights", f.otherNetModel().toString()),
            "conv1"),
        row(
            ".caffemodel of another net (test)",
            f -> f.test(f.otherNetModel().toString()),
            "conv1"),
        // ---- found once Spark reads the data or the trainer opens the checkpoint (local[2])
        row(
            "checkpoint directory of another net",
            f -> f.train("--checkpoint", f.foreignCheckpoint().toString()),
            "another net definition"),
        row(
            "label out of range",
            f -> f.trainWith("--train", idx(f, "twelve-images-idx3-ubyte", 128, 128, true, 12)),
            "label 12"),
        row(
            "input shape does not match the data",
            f -> f.train("--sample-shape", "1,32,32"),
            "784",
            "1024"),
        row(
            "batch larger than the data",
            f -> f.trainWith("--train", idx(f, "ten-images-idx3-ubyte", 10, 10, true)),
            "10 examples",
            "fewer than one batch"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badInputIsExitTwoNamingTheCulprit(
      String name, Function<Fx, String[]> args, List<Function<Fx, String>> expected)
      throws Exception {
    Result r = CliFixtures.run(args.apply(fx));
    assertEquals(SparkNetCli.EXIT_BAD_INPUT, r.exit(), name + ": " + r);
    String err = r.err().strip();
    assertTrue(
        err.lines().filter(l -> l.startsWith("sparknet:")).count() == 1,
        name + ": one line that says why:\n" + r);
    for (Function<Fx, String> e : expected) {
      String part = e.apply(fx);
      assertTrue(err.contains(part), name + ": expected '" + part + "' in: " + err);
    }
    assertEquals(guardedBefore, snapshot(fx.output(), fx.foreignCheckpoint()), "output touched");
  }

  // ---------------------------------------------------------------- case helpers

  private static Arguments row(String name, Function<Fx, String[]> args, String... expected) {
    List<Function<Fx, String>> e = new ArrayList<>();
    for (String s : expected) {
      e.add(f -> s);
    }
    return Arguments.of(name, args, e);
  }

  private static Arguments row(
      String name, Function<Fx, String[]> args, Function<Fx, String> expected) {
    return Arguments.of(name, args, List.of(expected));
  }

  /** Training and test data both from one CIFAR file. */
  private static String[] onCifar(Fx f, String file) {
    String[] a = f.trainWith("--train", file, "--format", "cifar");
    a[Arrays.asList(a).indexOf("--test") + 1] = file;
    return a;
  }

  /** A CIFAR-10 batch cut off 10 bytes before the end of its third record. */
  private static String truncatedCifar(Fx f) {
    try {
      Path file = f.dir().resolve("short.bin");
      Files.write(file, new byte[3 * 3073 - 10]);
      return file.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** An IDX images file of {@code n} Fashion-MNIST images and, if asked, a labels file of m. */
  private static String idx(Fx f, String name, int n, int m, boolean labels, int... label) {
    try {
      Path images = f.dir().resolve(name);
      byte[] pixels = Arrays.copyOfRange(Files.readAllBytes(Path.of(f.train())), 16, 16 + n * 784);
      try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(images))) {
        out.writeInt(0x0803);
        out.writeInt(n);
        out.writeInt(28);
        out.writeInt(28);
        out.write(pixels);
      }
      if (labels) {
        Path lab = f.dir().resolve(name.replace("images-idx3", "labels-idx1"));
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(lab))) {
          out.writeInt(0x0801);
          out.writeInt(m);
          for (int i = 0; i < m; i++) {
            out.writeByte(label.length > 0 && i == m - 1 ? label[0] : i % 10);
          }
        }
      }
      return images.toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String corrupt(Fx f, String name, int offset, int value) {
    String p = idx(f, name, 10, 10, true);
    try {
      byte[] b = Files.readAllBytes(Path.of(p));
      b[offset] = (byte) value;
      Files.write(Path.of(p), b);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return p;
  }

  private static String truncated(Fx f, String name) {
    String p = idx(f, name, 10, 10, true);
    try {
      byte[] b = Files.readAllBytes(Path.of(p));
      Files.write(Path.of(p), Arrays.copyOf(b, 16 + 5 * 784 + 100));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return p;
  }

  private static Path garbage(Fx f, String name) {
    try {
      byte[] b = new byte[4096];
      new java.util.Random(7).nextBytes(b);
      return Files.write(f.dir().resolve(name), b);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String netWith(Fx f, String name, String from, String to) {
    try {
      String text = Files.readString(f.net());
      if (!text.contains(from)) {
        throw new IllegalStateException("'" + from + "' not in " + f.net());
      }
      return Files.writeString(
              f.dir().resolve(name),
              text.replaceFirst(
                  java.util.regex.Pattern.quote(from),
                  java.util.regex.Matcher.quoteReplacement(to)))
          .toString();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path lonelySolver(Fx f) {
    try {
      Path dir = Files.createDirectories(f.dir().resolve("lonely"));
      Path s = dir.resolve("lenet_solver.prototxt");
      if (!Files.exists(s)) {
        Files.copy(f.solver(), s);
      }
      return s;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path existingModelDir(Fx f) {
    try {
      Path dir = Files.createDirectories(f.dir().resolve("done"));
      Path model = dir.resolve("final.caffemodel");
      if (!Files.exists(model)) {
        Files.writeString(model, "a finished run's weights");
      }
      return dir;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Every file under the given directories with its contents, for a byte-for-byte comparison. */
  private static Map<String, String> snapshot(Path... dirs) throws IOException {
    Map<String, String> m = new TreeMap<>();
    MessageDigest sha256;
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    for (Path d : dirs) {
      try (Stream<Path> s = Files.walk(d)) {
        for (Path p : s.filter(Files::isRegularFile).toList()) {
          m.put(p.toString(), HexFormat.of().formatHex(sha256.digest(Files.readAllBytes(p))));
        }
      }
    }
    return m;
  }
}
