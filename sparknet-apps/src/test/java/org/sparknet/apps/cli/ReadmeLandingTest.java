package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.testing.DocPages;

/**
 * README.md is a landing page: at most 300 lines, the two commands (the main job and the tests) in
 * its first 80, and CI runs exactly the test command it gives. Broken on purpose: .ci/run's last
 * line changed to {@code mvn -B -q verify} failed with ".ci/run runs what README's test block says
 * ==> expected: <mvn -B verify> but was: <mvn -B -q verify>".
 */
class ReadmeLandingTest {
  private static final String MAIN_JOB = "bin/setup && bin/sparknet demo";
  private static final String TESTS = "mvn -B verify";

  @Test
  void readmeIsShortAndOpensWithTheTwoCommands() {
    DocPages.Page readme = DocPages.pages().get(0);
    long lines = readme.text().lines().count();
    assertTrue(lines <= 300, "README.md has " + lines + " lines; the reference belongs in docs/");
    List<String> early =
        DocPages.blocks(readme).stream()
            .filter(b -> b.line() <= 80)
            .map(b -> b.code().strip())
            .toList();
    assertTrue(early.contains(MAIN_JOB), "README's first 80 lines' blocks: " + early);
    assertTrue(early.contains(TESTS), "README's first 80 lines' blocks: " + early);
  }

  @Test
  void ciRunsReadmesTestCommand() throws Exception {
    List<String> ci =
        Files.readAllLines(DocPages.ROOT.resolve(".ci/run")).stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .toList();
    String readmeTests =
        DocPages.blocks(DocPages.pages().get(0)).stream()
            .map(b -> b.code().strip())
            .filter(c -> c.startsWith("mvn "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("README gives no mvn test command"));
    assertEquals(readmeTests, ci.get(ci.size() - 1), ".ci/run runs what README's test block says");
  }
}
