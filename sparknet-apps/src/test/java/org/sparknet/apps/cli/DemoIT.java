package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.plot.XyChart;
import org.sparknet.apps.testing.Pngs;

/**
 * The main job end to end, exactly as README runs it: LeNet on the full Fashion-MNIST, 2 workers on
 * local[2], τ = 50, 3 epochs. The acceptance bar is 0.88 test accuracy.
 */
class DemoIT {
  @TempDir Path tmp;

  @Test
  void demoReachesTheAccuracyBarAndWritesThePlot() throws Exception {
    Path png = tmp.resolve("curves.png");
    Path metrics = tmp.resolve("metrics.jsonl");
    String out = demo("--plot", png.toString(), "--metrics", metrics.toString());

    List<String> roundLines = out.lines().filter(l -> l.contains(" round ")).toList();
    assertEquals(28, roundLines.size(), "3 epochs of 60,000 at 2 x 50 x 64 per round: " + out);
    Matcher m =
        Pattern.compile("Final test accuracy (\\d\\.\\d+) after (\\d\\.\\d+) epochs").matcher(out);
    assertTrue(m.find(), out);
    double accuracy = Double.parseDouble(m.group(1));
    double epochs = Double.parseDouble(m.group(2));
    assertTrue(epochs <= 3.0 && epochs > 2.9, "epochs " + epochs);
    assertTrue(accuracy >= 0.88, "Fashion-MNIST test accuracy " + accuracy + " < 0.88\n" + out);

    // The loss chart (training and test loss) beside the test accuracy chart.
    Pngs.assertPng(png, 2 * XyChart.DEFAULT_WIDTH, XyChart.DEFAULT_HEIGHT);
    assertEquals(28, Files.readAllLines(metrics).size(), "one JSON line per round");
  }

  /**
   * The fast recipe runs with its own net, batch and tau: a quarter epoch is 5 rounds of 2 x 40 x
   * 32 images. With the recipe's tau dropped for the default 50, this test saw "tau=50 steps of
   * batch 32, 4 rounds".
   */
  @Test
  void fastRecipeTrainsWithItsOwnNetBatchAndTau() {
    Path png = tmp.resolve("fast.png");
    String out = demo("--recipe", "fast", "--epochs", "0.25", "--plot", png.toString());
    assertTrue(out.contains("SparkNet demo: fashion_fast on Fashion-MNIST"), out);
    assertTrue(out.contains("2 workers, tau=40 steps of batch 32, 5 rounds"), out);
    assertEquals(5, out.lines().filter(l -> l.contains(" round ")).count(), out);
    Matcher m = Pattern.compile("Final test accuracy (\\d\\.\\d+)").matcher(out);
    assertTrue(m.find(), out);
    assertTrue(Double.parseDouble(m.group(1)) >= 0.75, out);
  }

  /** Runs {@code bin/sparknet demo ARGS} in this JVM; returns what it printed, after exit 0. */
  private static String demo(String... args) {
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream old = System.out;
    int exit;
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      String[] all = new String[args.length + 1];
      all[0] = "demo";
      System.arraycopy(args, 0, all, 1, args.length);
      exit = SparkNetCli.run(all);
    } finally {
      System.setOut(old);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    System.out.println(out);
    assertEquals(0, exit, out);
    return out;
  }
}
