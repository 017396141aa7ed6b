package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.Supplier;
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

  /**
   * The driver of YARN's cluster mode is the JVM whose Spark settings, which YARN's
   * ApplicationMaster sets as system properties, say master yarn and deploy mode cluster; neither
   * alone nor client mode nor another master makes one.
   */
  @Test
  void theClusterDriverIsYarnInClusterModeOnly() {
    assertFalse(withSparkProperties(null, null, YarnSettings::inClusterDriver));
    assertTrue(withSparkProperties("yarn", "cluster", YarnSettings::inClusterDriver));
    assertFalse(withSparkProperties("yarn", "client", YarnSettings::inClusterDriver));
    assertFalse(withSparkProperties("yarn", null, YarnSettings::inClusterDriver));
    assertFalse(withSparkProperties(null, "cluster", YarnSettings::inClusterDriver));
    assertFalse(
        withSparkProperties("spark://127.0.0.1:7077", "cluster", YarnSettings::inClusterDriver));
  }

  /**
   * In the driver of YARN's cluster mode main returns on exit 0 and throws, naming the code, on any
   * other (an exit there made YARN's ApplicationMaster report FAILED: YarnClusterModeIT). A main
   * that exits here ends the test JVM: surefire reports that the fork exited.
   */
  @Test
  void mainInTheClusterDriverReturnsOnSuccessAndThrowsOnFailure() {
    assertTrue(
        withSparkProperties(
            "yarn",
            "cluster",
            () -> {
              SparkNetCli.main(new String[] {"--version"});
              return true;
            }));
    assertTrue(text(out).contains("SparkNet"), text(out));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                withSparkProperties(
                    "yarn",
                    "cluster",
                    () -> {
                      SparkNetCli.main(new String[] {"--no-such-option"});
                      return true;
                    }));
    assertTrue(e.getMessage().contains("exit code 2 (bad usage or bad input)"), e.getMessage());
    assertTrue(text(err).contains("--no-such-option"), text(err));
  }

  /** {@code body}'s result with spark.master and spark.submit.deployMode set (null: unset). */
  private static <T> T withSparkProperties(String master, String deployMode, Supplier<T> body) {
    String[] keys = {"spark.master", "spark.submit.deployMode"};
    String[] values = {master, deployMode};
    String[] before = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      before[i] = set(keys[i], values[i]);
    }
    try {
      return body.get();
    } finally {
      for (int i = 0; i < keys.length; i++) {
        set(keys[i], before[i]);
      }
    }
  }

  /** Sets (or with null clears) a system property and returns what it was. */
  private static String set(String key, String value) {
    return value == null ? System.clearProperty(key) : System.setProperty(key, value);
  }

  private static String text(ByteArrayOutputStream b) {
    return b.toString(StandardCharsets.UTF_8);
  }
}
