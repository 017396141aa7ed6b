package org.sparknet.apps.notebook;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;

/**
 * The README doctest: every {@code ```java} block of README.md, in order, pasted into one {@code
 * bin/sparknet shell} session run from the repository root, as a reader would (the Spark ML blocks
 * continue one session). After each block the session prints a marker; the block fails when its
 * part of the output holds a jshell error or exception report ({@link CliFixtures#JSHELL_FAILURE}),
 * or when its marker is missing. The shell's temporary directory (where the README writes its
 * models) is this test's.
 *
 * <p>Broken on purpose: a line of the builder block moved its dot to the start of the next line
 * failed with "README Java block 1 (line 224) failed in bin/sparknet shell: Error:" (illegal start
 * of expression); stages that did not take the example shape from the features failed block 2 on
 * the LeNet solver's Data layers ("does not declare the shape of an example").
 */
class ReadmeJavaBlocksIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final String MARKER = "@@ README Java block ";
  static final String OUTSIDE_SHELL = "<!-- outside bin/sparknet shell -->";

  @TempDir Path tmp;

  @Test
  void everyJavaBlockRunsInTheShell() throws Exception {
    if (!Files.isDirectory(Path.of("target/spark-jars"))) {
      throw new IllegalStateException("run this IT through 'mvn verify' (it packages the jar)");
    }
    List<Block> blocks = javaBlocks(Files.readString(ROOT.resolve("README.md")));
    assertTrue(blocks.size() >= 3, "README's Java blocks: " + blocks.size());
    StringBuilder script = new StringBuilder();
    for (int i = 0; i < blocks.size(); i++) {
      script.append(blocks.get(i).code()).append('\n');
      script.append("System.out.println(\"").append(MARKER).append(i + 1).append(" done\");\n");
    }
    script.append("/exit\n");
    Path jsh = tmp.resolve("readme.jsh");
    Files.writeString(jsh, script);

    String out = shell(jsh);
    List<String> parts = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < blocks.size(); i++) {
      String marker = MARKER + (i + 1) + " done";
      int at = out.indexOf(marker, from);
      Block b = blocks.get(i);
      assertTrue(
          at >= 0,
          "README Java block " + (i + 1) + " (line " + b.line() + ") never finished:\n" + out);
      parts.add(out.substring(from, at));
      from = at + marker.length();
    }
    for (int i = 0; i < parts.size(); i++) {
      Matcher m = CliFixtures.JSHELL_FAILURE.matcher(parts.get(i));
      if (m.find()) {
        throw new AssertionError(
            "README Java block "
                + (i + 1)
                + " (line "
                + blocks.get(i).line()
                + ") failed in bin/sparknet shell: "
                + m.group()
                + "\n"
                + parts.get(i));
      }
    }
    // What the blocks print: the builder's net, an accuracy well above chance (0.1) after the
    // Spark ML block's few rounds, and the fine-tuned and loaded models' accuracies.
    assertTrue(parts.get(0).contains("431,080"), parts.get(0));
    Matcher acc = Pattern.compile("test accuracy (0\\.\\d+)").matcher(out);
    assertTrue(acc.find(), out);
    assertTrue(Double.parseDouble(acc.group(1)) > 0.5, acc.group());
    Matcher two =
        Pattern.compile("fine-tuned (0\\.\\d+), from Caffe files (0\\.\\d+)").matcher(out);
    assertTrue(two.find(), out);
    assertTrue(Double.parseDouble(two.group(1)) > 0.5, two.group());
    assertTrue(Double.parseDouble(two.group(2)) > 0.5, two.group());
    assertTrue(Files.isDirectory(tmp.resolve("sparknet-readme/lenet/weights")), "model saved");
  }

  /** A fenced Java block of the README and the line its code starts on. */
  record Block(String code, int line) {}

  /**
   * The Java blocks the shell runs: all but those right after a {@value #OUTSIDE_SHELL} comment,
   * which are programs of their own on another class path (ONNX Runtime's, for an exported model).
   */
  static List<Block> javaBlocks(String readme) {
    List<Block> blocks = new ArrayList<>();
    Matcher m = Pattern.compile("(?ms)^```java\\n(.*?)^```$").matcher(readme);
    while (m.find()) {
      if (readme.substring(0, m.start()).stripTrailing().endsWith(OUTSIDE_SHELL)) {
        continue;
      }
      int line = (int) readme.substring(0, m.start(1)).chars().filter(c -> c == '\n').count() + 1;
      blocks.add(new Block(m.group(1), line));
    }
    return blocks;
  }

  /** The session's output: bin/sparknet shell FILE from the repository root. */
  private String shell(Path jsh) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bin/sparknet", "shell", jsh.toString()).directory(ROOT.toFile());
    pb.environment().put("SPARKNET_JAVA_OPTS", "-Xmx2g -Djava.io.tmpdir=" + tmp);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return CliFixtures.runToEnd(pb, tmp.resolve("jshell.log"), 8, "The README's blocks");
  }
}
