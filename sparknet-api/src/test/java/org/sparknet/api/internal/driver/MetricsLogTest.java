package org.sparknet.api.internal.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsLogTest {

  @Test
  void aNewRunReplacesTheFileAtItsFirstRoundAndAResumeKeepsItsRounds(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("out/metrics.jsonl");
    String uri = file.toUri().toString();
    try (MetricsLog first = new MetricsLog(uri, new Configuration())) {
      first.start(0);
      for (int r = 1; r <= 3; r++) {
        first.append("{\"round\":" + r + ",\"run\":1}");
        assertEquals(r, Files.readAllLines(file).size(), "each line is visible when written");
      }
    }
    // A run that fails before its first round leaves the file as it was (broken: truncated it).
    try (MetricsLog failed = new MetricsLog(uri, new Configuration())) {
      failed.start(0);
    }
    assertEquals(3, Files.readAllLines(file).size());
    // Resumed from round 2: rounds 1 and 2 stay, round 3 is the resumed run's.
    try (MetricsLog resumed = new MetricsLog(uri, new Configuration())) {
      resumed.start(2);
      resumed.append("{\"round\":3,\"run\":2}");
    }
    assertEquals(
        List.of("{\"round\":1,\"run\":1}", "{\"round\":2,\"run\":1}", "{\"round\":3,\"run\":2}"),
        Files.readAllLines(file));
    // A new run starts the file anew.
    try (MetricsLog fresh = new MetricsLog(uri, new Configuration())) {
      fresh.start(0);
      fresh.append("{\"round\":1,\"run\":3}");
    }
    assertEquals(List.of("{\"round\":1,\"run\":3}"), Files.readAllLines(file));
  }
}
