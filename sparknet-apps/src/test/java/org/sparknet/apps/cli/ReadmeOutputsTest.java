package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.testing.DocPages;
import picocli.CommandLine;

/**
 * What the documented commands write, run as written from the checkout, is ignored by git: every
 * relative path after an output flag in the command blocks of README.md and docs/*.md ({@link
 * DocPages}), and the defaults of the commands' output options. Broken on purpose: without /run1/
 * in .gitignore, "run1 is not ignored by git".
 */
class ReadmeOutputsTest {
  private static final Path ROOT = DocPages.ROOT;
  private static final Pattern OUTPUT =
      Pattern.compile("--(output|out|plot|metrics|checkpoint)[ =]([^\\s\\\\]+)");

  @Test
  void theReadmeCommandsOutputsAreIgnoredByGit() throws Exception {
    assumeTrue(Files.exists(ROOT.resolve(".git")), "not a git checkout");
    Set<String> outputs = new TreeSet<>();
    for (DocPages.Block block : DocPages.allBlocks()) {
      Matcher m = OUTPUT.matcher(block.code());
      while (m.find()) {
        String path = m.group(2);
        if (!path.startsWith("/") && !path.contains(":") && !path.contains("DIR")) {
          outputs.add(path);
        }
      }
    }
    CommandLine cli = new CommandLine(new SparkNetCli());
    outputs.add(
        cli.getSubcommands().get("demo").getCommandSpec().findOption("--plot").defaultValue());
    outputs.add(
        cli.getSubcommands()
            .get("autoencoder")
            .getCommandSpec()
            .findOption("--out")
            .defaultValue());
    assertTrue(
        outputs.containsAll(List.of("run1", "preds", "cifar-run", "sparknet-demo.png")),
        "" + outputs);
    for (String path : outputs) {
      List<String> cmd = new ArrayList<>(List.of("git", "check-ignore", "-q", "--no-index", path));
      Process p = new ProcessBuilder(cmd).directory(ROOT.toFile()).inheritIO().start();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "git check-ignore " + path);
      assertEquals(0, p.exitValue(), path + " is not ignored by git (.gitignore)");
    }
  }
}
