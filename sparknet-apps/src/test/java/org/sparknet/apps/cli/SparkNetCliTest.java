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
   * An unexpected exception names the command that failed, its class and message (and its root
   * cause's), never "null"; a build that printed getMessage() alone gave "sparknet: training
   * failed: null", and one that said "training failed" whatever the command ran gave it for an
   * export.
   */
  @Test
  void unexpectedFailuresNameTheirClass() {
    String npe = SparkNetCli.describe(new NullPointerException(), false, "train");
    assertEquals(
        "sparknet: train failed: java.lang.NullPointerException (--debug prints the stack trace)",
        npe);
    String wrapped =
        SparkNetCli.describe(
            new IllegalStateException("round 3", new java.io.IOException("disk full")),
            true,
            "export");
    assertEquals(
        "sparknet: export failed: java.lang.IllegalStateException: round 3; caused by"
            + " java.io.IOException: disk full",
        wrapped);
    assertEquals(
        "sparknet: error: bad",
        SparkNetCli.describe(new IllegalArgumentException("bad"), false, "test"));
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
    assertTrue(text(err).contains("\tat org.sparknet.apps.cli.DemoCommand.call"), text(err));
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
