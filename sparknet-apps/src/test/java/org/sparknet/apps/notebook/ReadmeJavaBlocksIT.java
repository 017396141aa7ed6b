package org.sparknet.apps.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.DocPages;

/**
 * The doctest of README.md and docs/*.md ({@link DocPages}): every {@code ```java} block of a page,
 * in order, pasted into one {@code bin/sparknet shell} session of that page, run from the
 * repository root, as a reader would (a page's blocks continue one session; pages do not share
 * one). After each block the session prints a marker; the block fails when its part of the output
 * holds a jshell error or exception report ({@link CliFixtures#JSHELL_FAILURE}), or when its marker
 * is missing. The shell's temporary directory (where the blocks write their models) is this test's.
 *
 * <p>Broken on purpose: a line of README's Spark ML block moved its dot to the start of the next
 * line failed with "Java block at README.md:98 failed in bin/sparknet shell: Error:" (illegal start
 * of expression); stages that did not take the example shape from the features failed the Spark ML
 * blocks on the LeNet solver's Data layers ("does not declare the shape of an example"); {@link
 * DocPages} listing README.md alone gave "expected: <[README.md, docs/models.md, docs/spark-ml.md]>
 * but was: <[README.md]>" here.
 */
class ReadmeJavaBlocksIT {
  private static final String MARKER = "@@ Java block ";
  static final String OUTSIDE_SHELL = "<!-- outside bin/sparknet shell -->";

  @TempDir Path tmp;

  /** The pages with Java blocks for the shell; README's examples and the reference's both run. */
  static List<String> pagesWithJavaBlocks() {
    return DocPages.pages().stream()
        .filter(p -> !javaBlocks(p).isEmpty())
        .map(DocPages.Page::name)
        .toList();
  }

  @Test
  void theBlocksAreWhereTheirChecksLook() {
    assertEquals(
        List.of("README.md", "docs/models.md", "docs/spark-ml.md"),
        pagesWithJavaBlocks(),
        "pages with Java blocks; each needs its checks in pageOutputIsRight");
  }

  @ParameterizedTest
  @MethodSource("pagesWithJavaBlocks")
  void everyJavaBlockOfThePageRunsInTheShell(String name) throws Exception {
    if (!Files.isDirectory(Path.of("target/spark-jars"))) {
      throw new IllegalStateException("run this IT through 'mvn verify' (it packages the jar)");
    }
    DocPages.Page page =
        DocPages.pages().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    List<DocPages.Block> blocks = javaBlocks(page);
    StringBuilder script = new StringBuilder();
    for (int i = 0; i < blocks.size(); i++) {
      script.append(blocks.get(i).code()).append('\n');
      script.append("System.out.println(\"").append(MARKER).append(i + 1).append(" done\");\n");
    }
    script.append("/exit\n");
    Path jsh = tmp.resolve("blocks.jsh");
    Files.writeString(jsh, script);

    String out = shell(jsh, name);
    List<String> parts = new ArrayList<>();
    int from = 0;
    for (int i = 0; i < blocks.size(); i++) {
      String marker = MARKER + (i + 1) + " done";
      int at = out.indexOf(marker, from);
      assertTrue(at >= 0, "Java block at " + blocks.get(i).where() + " never finished:\n" + out);
      parts.add(out.substring(from, at));
      from = at + marker.length();
    }
    for (int i = 0; i < parts.size(); i++) {
      Matcher m = CliFixtures.JSHELL_FAILURE.matcher(parts.get(i));
      if (m.find()) {
        throw new AssertionError(
            "Java block at "
                + blocks.get(i).where()
                + " failed in bin/sparknet shell: "
                + m.group()
                + "\n"
                + parts.get(i));
      }
    }
    pageOutputIsRight(name, out);
  }

  /**
   * What each page's blocks print: accuracies well above chance (0.1) after their few rounds, the
   * builder's net, the models saved.
   */
  private void pageOutputIsRight(String page, String out) {
    switch (page) {
      case "README.md" -> {
        accuracyAbove(out, "Java API: \\{[^}]*accuracy=(0\\.\\d+)", 0.5);
        accuracyAbove(out, "Spark ML: test accuracy (0\\.\\d+)", 0.5);
      }
      case "docs/models.md" -> assertTrue(out.contains("431,080"), out);
      case "docs/spark-ml.md" -> {
        accuracyAbove(out, "test accuracy (0\\.\\d+)", 0.5);
        accuracyAbove(out, "fine-tuned (0\\.\\d+),", 0.5);
        accuracyAbove(out, "from Caffe files (0\\.\\d+)", 0.5);
        assertTrue(Files.isDirectory(tmp.resolve("sparknet-readme/lenet/weights")), "model saved");
      }
      default -> throw new AssertionError("no checks for the Java blocks of " + page);
    }
  }

  private static void accuracyAbove(String out, String regex, double floor) {
    Matcher m = Pattern.compile(regex).matcher(out);
    assertTrue(m.find(), regex + " not in:\n" + out);
    assertTrue(Double.parseDouble(m.group(1)) > floor, m.group());
  }

  /**
   * The Java blocks the shell runs: all but those right after a {@value #OUTSIDE_SHELL} comment,
   * which are programs of their own on another class path (ONNX Runtime's, for an exported model).
   */
  static List<DocPages.Block> javaBlocks(DocPages.Page page) {
    return DocPages.blocks(page).stream()
        .filter(b -> b.language().equals("java"))
        .filter(b -> !outsideShell(page.text(), b))
        .toList();
  }

  private static boolean outsideShell(String text, DocPages.Block b) {
    int fence = nthLineStart(text, b.line() - 1);
    return text.substring(0, fence).stripTrailing().endsWith(OUTSIDE_SHELL);
  }

  /** The offset of the start of 1-based line {@code line}. */
  private static int nthLineStart(String text, int line) {
    int at = 0;
    for (int i = 1; i < line; i++) {
      at = text.indexOf('\n', at) + 1;
    }
    return at;
  }

  /** The session's output: bin/sparknet shell FILE from the repository root. */
  private String shell(Path jsh, String page) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder("bin/sparknet", "shell", jsh.toString())
            .directory(DocPages.ROOT.toFile());
    pb.environment().put("SPARKNET_JAVA_OPTS", "-Xmx2g -Djava.io.tmpdir=" + tmp);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return CliFixtures.runToEnd(pb, tmp.resolve("jshell.log"), 8, page + "'s Java blocks");
  }
}
