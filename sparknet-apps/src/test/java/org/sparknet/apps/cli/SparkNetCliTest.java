package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The CLI's contract without training: help, exit codes and one-line errors. */
class SparkNetCliTest {
  @RegisterExtension final CapturedOutput io = new CapturedOutput();
  private final ByteArrayOutputStream out = io.out;
  private final ByteArrayOutputStream err = io.err;

  @TempDir Path tmp;

  @Test
  void helpListsTheCommandsAndExitsZero() {
    assertEquals(0, SparkNetCli.run("--help"));
    assertTrue(text(out).contains("demo"), text(out));
    assertTrue(text(out).contains("export") && text(out).contains("ONNX"), text(out));
  }

  @Test
  void exportHelpDescribesItsOptions() {
    assertEquals(0, SparkNetCli.run("export", "--help"));
    assertTrue(text(out).contains("--onnx") && text(out).contains("--weights"), text(out));
  }

  /**
   * shell is listed and has SparkNet's own help (bin/sparknet hands `shell --help` to the CLI); run
   * from the jar it says where the shell is. Without ShellCommand registered, --help listed no
   * shell and `shell --help` was an unmatched argument (exit 2).
   */
  @Test
  void shellIsListedWithItsOwnHelp() {
    assertEquals(0, SparkNetCli.run("--help"));
    assertTrue(text(out).contains("shell "), text(out));
    out.reset();
    assertEquals(0, SparkNetCli.run("shell", "--help"));
    assertTrue(
        text(out).contains("FILE.jsh") && text(out).contains("README") && text(out).contains("dot"),
        text(out));
    assertEquals(2, SparkNetCli.run("shell"));
    assertTrue(text(err).contains("bin/sparknet shell"), text(err));
  }

  @Test
  void demoHelpDescribesItsOptions() {
    assertEquals(0, SparkNetCli.run("demo", "--help"));
    assertTrue(text(out).contains("--tau") && text(out).contains("--workers"), text(out));
  }

  @Test
  void autoencoderHelpAndBadSizesExitTwoBeforeSparkStarts() {
    assertEquals(0, SparkNetCli.run("autoencoder", "--help"));
    assertTrue(text(out).contains("--rbm-epochs") && text(out).contains("PCA"), text(out));
    assertEquals(2, SparkNetCli.run("autoencoder", "--layers", "1000,0"));
    assertTrue(text(err).contains("Layer sizes must be >= 1"), text(err));
    assertEquals(2, SparkNetCli.run("autoencoder", "--tau", "0"));
    assertTrue(text(err).contains("tau must be >= 1") || text(err).contains("tau"), text(err));
  }

  @Test
  void unknownFlagIsAUsageErrorWithExitTwo() {
    assertEquals(2, SparkNetCli.run("demo", "--no-such-flag"));
    assertTrue(text(err).contains("Unknown option: '--no-such-flag'"), text(err));
  }

  @Test
  void missingDataIsExitTwoWithOneLineThatNamesTheFile() {
    assertEquals(2, SparkNetCli.run("demo", "--data", tmp.toString()));
    String e = text(err).strip();
    assertEquals(1, e.lines().count(), e);
    assertTrue(e.contains(tmp.resolve("train-images-idx3-ubyte.gz").toString()), e);
    assertTrue(e.contains("dataset-fashion-mnist"), e);
  }

  /**
   * An unexpected exception names its class and message (and its root cause's), never "null"; a
   * build that printed getMessage() alone gave "sparknet: training failed: null".
   */
  @Test
  void unexpectedFailuresNameTheirClass() {
    String npe = SparkNetCli.describe(new NullPointerException(), false);
    assertEquals(
        "sparknet: training failed: java.lang.NullPointerException (--debug prints the stack"
            + " trace)",
        npe);
    String wrapped =
        SparkNetCli.describe(
            new IllegalStateException("round 3", new java.io.IOException("disk full")), true);
    assertEquals(
        "sparknet: training failed: java.lang.IllegalStateException: round 3; caused by"
            + " java.io.IOException: disk full",
        wrapped);
    assertEquals(
        "sparknet: error: bad", SparkNetCli.describe(new IllegalArgumentException("bad"), false));
  }

  /**
   * Bad input a task found comes out of Spark's wrapping (a job's SparkException, a Parquet write's
   * SparkException around another) as its own message, exit 2; an IllegalArgumentException inside
   * another failure that is not Spark's stays that failure. A build without taskCause gave the
   * SparkException "Task write failed" here, and for predict's Parquet write in
   * BadInputTaskFailureIT exit 1 with "sparknet: training failed: org.apache.spark.SparkException:
   * Job aborted due to stage failure: Task 0 in stage 4.0 failed 1 times, ...; caused by
   * java.lang.IllegalArgumentException: The net's input blob expects 1024 floats per example but
   * example 0 has 784; ...".
   */
  @Test
  void aTasksBadInputIsUnwrappedFromSparksException() {
    IllegalArgumentException bad = new IllegalArgumentException("example 0 has 784 floats");
    Exception job =
        new org.apache.spark.SparkException(
            "Task write failed", new org.apache.spark.SparkException("Job aborted", bad));
    assertEquals(bad, SparkNetCli.taskCause(job));
    assertEquals(
        "sparknet: error: example 0 has 784 floats",
        SparkNetCli.describe(SparkNetCli.taskCause(job), false));
    Exception notSpark = new IllegalStateException("round 3", bad);
    assertEquals(notSpark, SparkNetCli.taskCause(notSpark));
  }

  /**
   * An unexpected failure says which command failed: "training failed" for those that train, else
   * the command. A failed() that said "training failed" whatever the command (as every command did
   * before) gave "sparknet: training failed: java.lang.IllegalStateException: disk full" for the
   * export.
   */
  @Test
  void anUnexpectedFailureNamesTheCommand() {
    Exception e = new IllegalStateException("disk full");
    assertEquals(
        "sparknet: export failed: java.lang.IllegalStateException: disk full",
        SparkNetCli.describe(e, true, SparkNetCli.failed("export")));
    assertEquals(
        "sparknet: training failed: java.lang.IllegalStateException: disk full",
        SparkNetCli.describe(e, true, SparkNetCli.failed("char-rnn")));
  }

  /** --debug is an option of every command; with it a failure prints its stack trace. */
  @Test
  void debugPrintsTheStackTraceOnEveryCommand() {
    for (String command : new String[] {"demo", "train", "test", "predict", "char-rnn"}) {
      assertEquals(0, SparkNetCli.run(command, "--debug", "--help"), command);
    }
    assertEquals(0, SparkNetCli.run("autoencoder", "--debug", "--help"));
    err.reset();
    assertEquals(2, SparkNetCli.run("demo", "--tau", "0"));
    assertTrue(!text(err).contains("\tat org.sparknet"), text(err));
    err.reset();
    assertEquals(2, SparkNetCli.run("demo", "--tau", "0", "--debug"));
    assertTrue(text(err).contains("\tat org.sparknet.apps.cli.DemoCommand.work"), text(err));
  }

  @Test
  void badValuesAreExitTwo() {
    assertEquals(2, SparkNetCli.run("demo", "--tau", "0"));
    assertTrue(text(err).contains("--tau"), text(err));
  }

  private static String text(ByteArrayOutputStream b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
