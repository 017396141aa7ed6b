package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;

/**
 * A place a command cannot write, one for each command that writes (docs/bad-input.md): exit 2 with
 * one line naming the option, the URI and the reason, before the command does any work (nothing on
 * stdout: every command prints its first line once it has read its data, and none read it), and no
 * probe file left behind. The places are ones a root user cannot write either: {@code /proc}, which
 * takes no new files, a regular file where a directory must be, and a directory where a file must
 * be. {@code test} writes nothing, so it has no row; {@code HdfsIT} adds an HDFS directory without
 * permission.
 *
 * <p>Broken builds. Without the writability check at the start (Outputs not probing), every row
 * went red: the fake weights of predict and export were read first ("Weights file ... is not a
 * binary Caffe NetParameter"); convert --output /proc exited 1 after Spark's tasks ran ("training
 * failed: org.apache.spark.SparkException: Job aborted ... Mkdirs failed to create
 * file:/proc/train.parquet/_temporary/..."); train --output /proc said "Cannot create the directory
 * file:/proc/sparknet-run: mkdirs returned false"; a --plot directory was found only when written
 * ("Cannot write file:/.../a-dir: Directory ... is not empty"); --metrics was found by the trainer
 * once Spark ran ("The metrics file: Cannot write in ..."), --out by the auto-encoder's own checks
 * not at all ("--train must be in [1, 200]"), convert --to lmdb by the database writer ("its parent
 * ... is not a directory"). With the probe's failure read as before (StoragePath.problem:
 * FileNotFoundException is "does not exist", the target not named), the /proc rows said "--onnx:
 * file:/proc does not exist" and the rows under a file "Cannot write in file:/.../a-file: it is a
 * file" without the target. With the probe not deleted, two {@code _sparknet-write-check-*} files
 * were left in a-dir (and one in the working directory, from demo's default --plot; the demo rows
 * now name theirs).
 */
class BadInputOutputsCliIT {
  @TempDir static Path tmp;
  private static Fx fx;

  /** Valid inputs, and places that cannot be written. */
  record Fx(Path solver, Path data, Path weights, Path aFile, Path aDir) {
    String train() {
      return data.resolve("train-images-idx3-ubyte").toString();
    }

    String net() {
      return solver.resolveSibling("examples/mnist/lenet_train_test.prototxt").toString();
    }
  }

  @BeforeAll
  static void fixtures() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 200, 100);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    // Any existing file does for --weights: no command gets as far as reading it.
    Path weights = Files.writeString(tmp.resolve("weights.caffemodel"), "not read");
    Path aFile = Files.writeString(tmp.resolve("a-file"), "in the way");
    Path aDir = Files.createDirectories(tmp.resolve("a-dir"));
    fx = new Fx(solver, data, weights, aFile, aDir);
  }

  @AfterAll
  static void noProbeFilesLeft() throws IOException {
    for (Path dir : new Path[] {tmp, Path.of("").toAbsolutePath()}) {
      try (Stream<Path> s = Files.walk(dir, dir == tmp ? Integer.MAX_VALUE : 1)) {
        List<Path> left =
            s.filter(p -> p.getFileName().toString().startsWith("_sparknet-write-check")).toList();
        assertTrue(left.isEmpty(), "probe files left: " + left);
      }
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        row(
            "train --output under /proc",
            f -> train(f, "--output", "/proc/sparknet-run"),
            "--output",
            "file:/proc/sparknet-run",
            "No such file or directory"),
        row(
            "train --plot a directory",
            f -> train(f, "--output", f.aDir().resolve("run").toString(), "--plot", dir(f)),
            "--plot",
            "file:" + fx.aDir(),
            "is a directory, but a file is written there"),
        row(
            "predict --output a file: URI under /proc",
            f ->
                args(
                    "predict",
                    "--solver",
                    f.solver().toString(),
                    "--weights",
                    f.weights().toString(),
                    "--input",
                    f.train(),
                    "--output",
                    "file:/proc/predictions"),
            "--output",
            "file:/proc/predictions",
            "No such file or directory"),
        row(
            "export --onnx under /proc",
            f ->
                args(
                    "export",
                    "--net",
                    f.net(),
                    "--weights",
                    f.weights().toString(),
                    "--onnx",
                    "/proc/model.onnx"),
            "--onnx",
            "file:/proc/model.onnx",
            "No such file or directory"),
        row(
            "demo --plot a directory",
            f -> args("demo", "--data", f.data().toString(), "--plot", dir(f)),
            "--plot",
            "file:" + fx.aDir(),
            "is a directory"),
        row(
            "demo --metrics under a file",
            f ->
                args(
                    "demo",
                    "--data",
                    f.data().toString(),
                    "--plot",
                    f.aDir().resolve("demo.png").toString(),
                    "--metrics",
                    under(f, "m.jsonl")),
            "--metrics",
            "file:" + fx.aFile() + "/m.jsonl",
            "it is a file"),
        row(
            "char-rnn --metrics under a file",
            f -> args("char-rnn", "--text", f.solver().toString(), "--metrics", under(f, "m")),
            "--metrics",
            "file:" + fx.aFile() + "/m",
            "it is a file"),
        row(
            "autoencoder --out under a file",
            f -> args("autoencoder", "--data", f.data().toString(), "--out", under(f, "ae")),
            "--out",
            "file:" + fx.aFile() + "/ae",
            "it is a file"),
        row(
            "convert --output under /proc",
            f -> args("convert", "--input", f.train(), "--output", "/proc/train.parquet"),
            "--output",
            "file:/proc/train.parquet",
            "No such file or directory"),
        row(
            "convert --to lmdb under a file",
            f -> args("convert", "--input", f.train(), "--to", "lmdb", "--output", under(f, "db")),
            "--output",
            "file:" + fx.aFile() + "/db",
            "it is a file"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void anUnwritablePlaceIsExitTwoBeforeAnyWork(
      String name, Function<Fx, String[]> args, List<String> expected) {
    Result r = CliFixtures.run(args.apply(fx));
    assertEquals(SparkNetCli.EXIT_BAD_INPUT, r.exit(), name + ": " + r);
    String err = r.err().strip();
    assertEquals(1, err.lines().count(), name + ": one line that says why:\n" + r);
    assertTrue(err.startsWith("sparknet: error: "), name + ": " + r);
    for (String part : expected) {
      assertTrue(err.contains(part), name + ": expected '" + part + "' in: " + err);
    }
    assertEquals("", r.out(), name + ": the command started its work");
  }

  // ---------------------------------------------------------------- case helpers

  private static Arguments row(String name, Function<Fx, String[]> args, String... expected) {
    return Arguments.of(name, args, List.of(expected));
  }

  private static String[] args(String... a) {
    return a;
  }

  private static String[] train(Fx f, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                f.solver().toString(),
                "--train",
                f.train(),
                "--tau",
                "2",
                "--rounds",
                "1"));
    a.addAll(Arrays.asList(more));
    return a.toArray(new String[0]);
  }

  private static String dir(Fx f) {
    return f.aDir().toString();
  }

  /** A path under the regular file {@link Fx#aFile}. */
  private static String under(Fx f, String name) {
    return f.aFile().resolve(name).toString();
  }
}
