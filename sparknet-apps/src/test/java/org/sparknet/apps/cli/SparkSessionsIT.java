package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The CLI sets its defaults only where the user set nothing: spark-submit's {@code --conf
 * spark.ui.enabled=true} reaches the driver as a system property and wins over the CLI's "no UI" (a
 * build that always set it gave "false"). Each case runs in a JVM of its own, as the CLI does: in
 * this one the tests' shared session is already running, and a session builder returns it.
 */
class SparkSessionsIT {
  @Test
  void aUsersUiSettingWins() throws Exception {
    assertEquals("true", probe("-Dspark.ui.enabled=true"));
    assertEquals("false", probe(null));
  }

  /** Starts the CLI's session in a child JVM and returns its SparkContext's spark.ui.enabled. */
  private static String probe(String property) throws IOException, InterruptedException {
    Path target = Path.of("target").toAbsolutePath();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.addAll(
        Arrays.asList(
            Files.readString(target.resolve("launcher/jvm-flags.txt")).strip().split("\\s+")));
    cmd.add("-Dlog4j2.configurationFile=" + target.resolve("launcher/log4j2.properties"));
    cmd.add("-Dspark.driver.host=127.0.0.1");
    if (property != null) {
      cmd.add(property);
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Probe.class.getName());
    Path out = Files.createTempFile("sparknet-ui", ".log");
    try {
      Process p =
          new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
      int rc = p.waitFor();
      String log = Files.readString(out, StandardCharsets.UTF_8);
      assertEquals(0, rc, log);
      return log.lines()
          .filter(l -> l.startsWith("ui="))
          .map(l -> l.substring(3))
          .findFirst()
          .orElseThrow(() -> new AssertionError("no ui= line in:\n" + log));
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** The child: the CLI's session, and what its SparkContext was given. */
  public static final class Probe {
    public static void main(String[] args) {
      SparkSession spark = SparkSessions.forCommand("local[1]", 1, "ui test");
      try {
        System.out.println("ui=" + spark.sparkContext().getConf().get("spark.ui.enabled"));
      } finally {
        spark.stop();
      }
    }
  }
}
