package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;

/**
 * Every command checks each place it writes before it works: an output under {@code /proc}, where
 * no one (root included) can create a file, is exit 2 with one line naming the option and the URI,
 * and nothing was printed (the commands print their first progress line once the checks passed).
 * {@code test} writes nothing; {@code gpus} and {@code shell} neither. Broken builds: without the
 * check, {@code export --onnx /proc/model.onnx} converted the net and then exited 1 with "export
 * failed: java.io.FileNotFoundException: /proc/_model.onnx.tmp (No such file or directory)"; {@code
 * predict --output} ran the net and exited 1 with "predict failed: org.apache.spark.SparkException:
 * Job aborted due to stage failure: ... Mkdirs failed to create file:/proc/..."; {@code demo
 * --metrics} started Spark and read the data before the trainer refused "The metrics file:
 * file:/proc", without naming the option.
 *
 * <p>And a bad record found inside a Spark task (a Parquet features column of the wrong size) is
 * the same one line, without Spark's task-failure log lines and their stack traces unless {@code
 * --debug} is given; run in a child JVM with bin/sparknet's logging, since Spark logs there.
 */
class BadInputOutputsCliIT {
  private static final String UNWRITABLE = "/proc/sparknet-unwritable";
  @TempDir static Path tmp;
  private static Path solver;
  private static Path data;
  private static Path model;

  @BeforeAll
  static void fixtures() throws Exception {
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 200, 100);
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    model = tmp.resolve("lenet.caffemodel");
    try (CaffeNet caffe =
        CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42))) {
      CaffeModels.save(caffe, model, false);
    }
  }

  /** A one-round train into {@code output}, followed by {@code more}. */
  private static String[] train(String output, String... more) {
    return CliFixtures.trainArgs(
        solver,
        data,
        concat(
            List.of(
                "--workers",
                "2",
                "--tau",
                "2",
                "--rounds",
                "1",
                "--device",
                "cpu",
                "--output",
                output),
            more));
  }

  /** {@link #train(String, String...)} into a temporary directory. */
  private static String[] trainWith(String... more) {
    return train(tmp.resolve("out").toString(), more);
  }

  private static String[] concat(List<String> first, String... rest) {
    List<String> a = new ArrayList<>(first);
    a.addAll(List.of(rest));
    return a.toArray(new String[0]);
  }

  private static String images() {
    return data.resolve("t10k-images-idx3-ubyte").toString();
  }

  static Stream<Arguments> commands() {
    String u = UNWRITABLE;
    return Stream.of(
        row("train --output", "--output", () -> train(u + "/run")),
        row("train --metrics", "--metrics", () -> trainWith("--metrics", u + "/m.jsonl")),
        row("train --plot", "--plot", () -> trainWith("--plot", u + "/curves.png")),
        row("train --checkpoint", "--checkpoint", () -> trainWith("--checkpoint", u + "/ckpt")),
        row(
            "predict --output",
            "--output",
            () ->
                new String[] {
                  "predict",
                  "--solver",
                  solver.toString(),
                  "--weights",
                  model.toString(),
                  "--input",
                  images(),
                  "--output",
                  u + "/predictions"
                }),
        row(
            "export --onnx",
            "--onnx",
            () ->
                new String[] {
                  "export",
                  "--net",
                  solver.resolveSibling("examples/mnist/lenet_train_test.prototxt").toString(),
                  "--weights",
                  model.toString(),
                  "--sample-shape",
                  "1,28,28",
                  "--onnx",
                  "/proc/model.onnx"
                }),
        row("demo --plot", "--plot", () -> new String[] {"demo", "--plot", u + "/demo.png"}),
        row("demo --metrics", "--metrics", () -> new String[] {"demo", "--metrics", u + "/m"}),
        row(
            "char-rnn --metrics",
            "--metrics",
            () -> new String[] {"char-rnn", "--rounds", "1", "--metrics", u + "/m"}),
        row("autoencoder --out", "--out", () -> new String[] {"autoencoder", "--out", u + "/ae"}),
        row(
            "convert --output",
            "--output",
            () -> new String[] {"convert", "--input", images(), "--output", u + "/p.parquet"}),
        row(
            "convert --to lmdb --output",
            "--output",
            () ->
                new String[] {
                  "convert", "--input", images(), "--to", "lmdb", "--output", u + "/db.lmdb"
                }));
  }

  private static Arguments row(String name, String option, Supplier<String[]> args) {
    return Arguments.of(name, option, args);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void anUnwritableOutputIsExitTwoBeforeTheWork(
      String name, String option, Supplier<String[]> args) {
    Result r = CliFixtures.run(args.get());
    assertEquals(SparkNetCli.EXIT_BAD_INPUT, r.exit(), name + ": " + r);
    List<String> lines = r.err().strip().lines().toList();
    assertEquals(1, lines.size(), name + ": one line that says why:\n" + r);
    String line = lines.get(0);
    assertTrue(line.startsWith("sparknet: error: "), name + ": " + line);
    assertTrue(line.contains(option), name + ": names " + option + ": " + line);
    assertTrue(line.contains("/proc"), name + ": names the URI: " + line);
    assertEquals("", r.out().strip(), name + ": nothing done before the check: " + r);
  }

  /**
   * A Parquet features column of 700 values where the net takes 784, in one row that a task reads
   * after others: bin/sparknet's logging without {@code --debug} shows the one line naming the
   * example and the sizes, and none of Spark's "Lost task" lines or stack traces (a build without
   * {@link TaskFailureLogs} printed the executor's "ERROR Executor: Exception in task 0.0" and the
   * scheduler's "WARN TaskSetManager: Lost task 0.0", each with its stack trace, and the block
   * manager's "Putting block rdd_9_0 failed", before the line); with {@code --debug} they are
   * there, and the stack trace of the command's own exception.
   */
  @Test
  void aBadRecordInATaskIsOneLineWithoutStackTraces() throws Exception {
    Path parquet = tmp.resolve("wrong-size.parquet");
    SparkSession spark = SparkSessions.local("local[1]", "write parquet");
    try {
      StructType schema =
          new StructType()
              .add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false)
              .add("label", DataTypes.IntegerType, false);
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        List<Float> px = new ArrayList<>();
        for (int k = 0; k < (i == 37 ? 700 : 784); k++) {
          px.add((float) ((i * 31 + k) % 256));
        }
        rows.add(RowFactory.create(px, i % 10));
      }
      spark.createDataFrame(rows, schema).coalesce(1).write().parquet(parquet.toString());
    } finally {
      spark.stop();
    }
    String[] args =
        CliFixtures.trainArgs(
            solver,
            data,
            "--format",
            "parquet",
            "--sample-shape",
            "1,28,28",
            "--workers",
            "1",
            "--tau",
            "2",
            "--rounds",
            "1",
            "--output",
            tmp.resolve("parquet-run").toString());
    // --format applies to --test too: both the same file.
    args[List.of(args).indexOf("--train") + 1] = parquet.toString();
    args[List.of(args).indexOf("--test") + 1] = parquet.toString();
    String quiet = runChild("quiet", args);
    List<String> said = quiet.lines().filter(l -> l.startsWith("sparknet:")).toList();
    assertEquals(1, said.size(), quiet);
    assertTrue(said.get(0).contains("700 floats in example 37"), quiet);
    assertTrue(said.get(0).contains("expects 784"), quiet);
    assertFalse(quiet.contains("\tat "), "no stack trace:\n" + quiet);
    assertFalse(quiet.contains("Lost task"), "no task-failure lines:\n" + quiet);
    assertFalse(quiet.contains("Putting block"), "no block-manager lines:\n" + quiet);

    String debug = runChild("debug", concat(List.of(args), "--debug"));
    assertTrue(debug.contains("Lost task"), "--debug shows Spark's lines:\n" + debug);
    assertTrue(debug.contains("\tat "), "--debug prints stack traces:\n" + debug);
  }

  /** Runs the CLI in a child JVM with bin/sparknet's logging; exit 2 expected; its output. */
  private static String runChild(String name, String[] args) throws Exception {
    Path log = tmp.resolve(name + ".log");
    Process p = CliFixtures.childJvm(log, args).start();
    assertTrue(p.waitFor(5, java.util.concurrent.TimeUnit.MINUTES), name + " finished");
    String out = Files.readString(log);
    System.out.println(out);
    assertEquals(SparkNetCli.EXIT_BAD_INPUT, p.exitValue(), out);
    return out;
  }
}
