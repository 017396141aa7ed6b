package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;

/**
 * Bad input that only a Spark task finds, as a user sees it on the console: the CLI in its own JVM
 * from the shaded jar with the launcher's log4j2 configuration (as bin/sparknet runs it), stdout
 * and stderr together. It exits 2 with the task's one line and none of Spark's reports of the
 * failed task (the executor's "Exception in task" and the task set manager's "Lost task", each with
 * a stack trace); {@code --debug} brings them back. One case per kind of source: Parquet read by
 * Spark SQL (a features column of another size than the net's input) and IDX read by SparkNet's own
 * reader (a label the net has no output for), both in train's packing job; and predict's Parquet
 * write of the same rows, whose SparkException wraps the task's error once more.
 *
 * <p>Broken build: with TaskFailureLogs not silencing anything, the Parquet case printed 147 lines
 * and the IDX case 75: "ERROR Executor: Exception in task 1.0 in stage 1.0 (TID 2)" with the task's
 * IllegalArgumentException and its stack trace, "WARN TaskSetManager: Lost task 1.0 in stage 1.0
 * (TID 2) (localhost executor driver): java.lang.IllegalArgumentException: ..." with it again,
 * "ERROR TaskSetManager: Task 1 in stage 1.0 failed 1 times; aborting job" and, for Parquet, "WARN
 * BlockManager: Putting block rdd_9_0 failed due to exception ...", all before the right one line
 * ("sparknet: error: Example.features has 784 floats ..." and "... label 12.0 ..."). The predict
 * case, with SparkNetCli.taskCause not unwrapping, exited 1 with "sparknet: training failed:
 * org.apache.spark.SparkException: Job aborted due to stage failure: ..." after 214 lines, among
 * them "ERROR FileFormatWriter: Aborting job ..." and its stack trace (which TaskFailureLogs
 * silences since it was seen there).
 */
class BadInputTaskFailureIT {
  private static final Pattern SPARK_STACK = Pattern.compile("(?m)^\\s+at org\\.apache\\.spark\\.");

  @TempDir static Path tmp;
  private static Path solver;
  private static Path data;
  private static Path parquet;
  private static Path labelTwelve;
  private static Path weights32;

  @BeforeAll
  static void fixtures() throws Exception {
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 200, 100);
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    parquet = tmp.resolve("train.parquet");
    Result converted =
        CliFixtures.run(
            "convert",
            "--input",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--output",
            parquet.toString());
    assertEquals(0, converted.exit(), converted.toString());
    // The 200 training images with the last label 12, which LeNet's 10 outputs have no class for.
    Path images =
        Files.copy(
            data.resolve("train-images-idx3-ubyte"), tmp.resolve("twelve-images-idx3-ubyte"));
    byte[] labels = Files.readAllBytes(data.resolve("train-labels-idx1-ubyte"));
    labels[labels.length - 1] = 12;
    Files.write(tmp.resolve("twelve-labels-idx1-ubyte"), labels);
    labelTwelve = images;
    // LeNet's weights for 1x32x32 inputs, which predict loads before any task runs.
    weights32 = tmp.resolve("lenet-32.caffemodel");
    try (CaffeNet caffe =
        CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 32, 32), 42))) {
      CaffeModels.save(caffe, weights32, false);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"parquet", "idx", "predict"})
  void aTaskFailureIsOneLineWithoutSparksStackTraces(String format) throws Exception {
    String out = runCli(format.equals("predict") ? predict() : train(format));
    String why =
        switch (format) {
          case "parquet" -> "784 floats";
          case "idx" -> "label 12";
          default -> "has 784";
        };
    assertOneLine(out, why);
    assertFalse(SPARK_STACK.matcher(out).find(), "Spark's stack traces on the console:\n" + out);
    assertFalse(out.contains("Lost task"), out);
    assertFalse(out.contains("Exception in task"), out);
  }

  /**
   * The same Parquet run with --debug: Spark's reports are there, so the test above can see them.
   */
  @Test
  void debugKeepsSparksReports() throws Exception {
    List<String> a = new ArrayList<>(train("parquet"));
    a.add("--debug");
    String out = runCli(a);
    assertTrue(out.contains("sparknet: error: "), out);
    assertTrue(out.contains("784 floats"), out);
    assertTrue(SPARK_STACK.matcher(out).find(), "no stack traces with --debug:\n" + out);
  }

  private static List<String> train(String format) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--tau",
                "1",
                "--rounds",
                "1",
                "--workers",
                "2",
                "--output",
                tmp.resolve("out-" + format + "-" + System.nanoTime()).toString()));
    if (format.equals("parquet")) {
      // The parquet rows hold 784 floats; a net input of 1x32x32 wants 1024, known only per row.
      a.addAll(
          Arrays.asList(
              "--train", parquet.toString(), "--format", "parquet", "--sample-shape", "1,32,32"));
    } else {
      a.addAll(Arrays.asList("--train", labelTwelve.toString()));
    }
    return a;
  }

  /**
   * predict of the Parquet rows (784 floats) with a net for 1x32x32, found in the writing tasks.
   */
  private static List<String> predict() {
    return List.of(
        "predict",
        "--solver",
        solver.toString(),
        "--weights",
        weights32.toString(),
        "--input",
        parquet.toString(),
        "--format",
        "parquet",
        "--sample-shape",
        "1,32,32",
        "--workers",
        "2",
        "--output",
        tmp.resolve("predictions-" + System.nanoTime()).toString());
  }

  /** Runs the CLI in its own JVM, expects exit 2, and returns what it printed. */
  private static String runCli(List<String> args) throws Exception {
    Path log = Files.createTempFile(tmp, "cli", ".log");
    Process p = CliFixtures.childJvm(log, args.toArray(new String[0])).start();
    boolean done = p.waitFor(5, TimeUnit.MINUTES);
    if (!done) {
      p.destroyForcibly();
    }
    String out = Files.readString(log, StandardCharsets.UTF_8);
    assertTrue(done, "did not finish:\n" + out);
    assertEquals(SparkNetCli.EXIT_BAD_INPUT, p.exitValue(), out);
    return out;
  }

  private static void assertOneLine(String out, String why) {
    List<String> lines = out.lines().filter(l -> l.startsWith("sparknet:")).toList();
    assertEquals(1, lines.size(), "one line that says why:\n" + out);
    assertTrue(lines.get(0).startsWith("sparknet: error: "), out);
    assertTrue(lines.get(0).contains(why), out);
  }
}
