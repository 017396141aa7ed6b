package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.DocPages;

/**
 * The README's train/test/predict block runs as written, through {@code bin/sparknet} from the
 * repository root (the jar that {@code mvn verify} packaged), with {@code --rounds 1} and its
 * output directories moved into a temporary folder. Each command must exit 0 and print neither the
 * "Using incubator modules" warning nor a picocli warning. {@link #block} finds a block on any page
 * ({@link DocPages}: README.md and docs/*.md), so other tests run the blocks that moved to docs/
 * through it (ExportCommandIT: docs/models.md's export line).
 */
class ReadmeCommandsIT {
  private static final Path ROOT = DocPages.ROOT;

  @TempDir Path tmp;

  @Test
  void theTrainTestPredictBlockRuns() throws Exception {
    List<List<String>> commands =
        sparknetCommands(block("bin/sparknet train --solver examples/mnist/lenet_solver.prototxt"));
    assertEquals(
        List.of("train", "test", "predict"),
        commands.stream().map(c -> c.get(1)).toList(),
        "the block's commands");
    for (List<String> c : commands) {
      String out = run(shortened(c));
      assertTrue(
          out.contains(c.get(1).equals("train") ? "Final test: accuracy" : "accuracy")
              || c.get(1).equals("predict"),
          out);
    }
    assertTrue(Files.isRegularFile(tmp.resolve("run1/final.caffemodel")));
    assertTrue(Files.isDirectory(tmp.resolve("preds")));
  }

  /** The one fenced block of README.md or docs/*.md that holds {@code marker}. */
  static String block(String marker) {
    return DocPages.block(marker).code();
  }

  /** The block's {@code bin/sparknet} commands: continuations joined, comments dropped. */
  static List<List<String>> sparknetCommands(String block) {
    List<List<String>> commands = new ArrayList<>();
    String joined = block.replace("\\\n", " ");
    for (String line : joined.split("\n")) {
      String code = line.replaceFirst("#.*$", "").strip();
      if (code.startsWith("bin/sparknet ")) {
        commands.add(List.of(code.split("\\s+")));
      }
    }
    return commands;
  }

  /** One round instead of the README's count; output directories under the temporary folder. */
  private List<String> shortened(List<String> command) {
    List<String> c = new ArrayList<>(command);
    for (int i = 0; i < c.size(); i++) {
      if (c.get(i).equals("--rounds")) {
        c.set(i + 1, "1");
      } else if (c.get(i).startsWith("run1") || c.get(i).equals("preds")) {
        c.set(i, tmp.resolve(c.get(i)).toString());
      }
    }
    return c;
  }

  /** Runs {@code command} from the repository root; returns its output after checking it. */
  private String run(List<String> command) throws Exception {
    Path log = Files.createTempFile(tmp, "cmd", ".log");
    ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile());
    pb.redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().put("SPARKNET_JAVA_OPTS", "-Xmx1g");
    Process p = pb.start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(command + " did not finish in 3 minutes: " + Files.readString(log));
    }
    String out = Files.readString(log);
    System.out.println(String.join(" ", command) + "\n" + out);
    assertEquals(0, p.exitValue(), out);
    // With --add-modules=jdk.incubator.vector in the launcher's flags, every command began so.
    assertFalse(out.contains("incubator modules"), out);
    assertFalse(out.contains("picocli WARN"), out);
    return out;
  }
}
