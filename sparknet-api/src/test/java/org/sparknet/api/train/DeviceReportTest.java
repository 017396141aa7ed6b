package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where each worker ran, said once before the first round and again only when a net moved.
 *
 * <p>Broken build this catches: a report that prints on every round gave five lines instead of
 * three.
 */
class DeviceReportTest {
  private static RoundMetrics round(int r, String... devices) {
    return RoundMetrics.builder().round(r).devices(Arrays.asList(devices)).build();
  }

  @Test
  void linesOnTheFirstRoundAndWhenAWorkerMoves() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DeviceReport report = new DeviceReport(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    report.onRound(round(1, "gpu:0", "gpu:1"));
    report.onRound(round(2, "gpu:0", "gpu:1"));
    report.onRound(round(3, "gpu:1", "gpu:0"));
    report.onRound(round(4, "gpu:1", "gpu:0"));
    report.onRound(round(5, "gpu:0,gpu:1", null));
    report.onRound(RoundMetrics.builder().round(6).build()); // no devices known: nothing to say
    assertEquals(
        List.of(
            "devices: worker 0 gpu:0, worker 1 gpu:1",
            "devices: worker 0 gpu:1, worker 1 gpu:0",
            "devices: worker 0 gpu:0,gpu:1, worker 1 (no data)"),
        bytes.toString(StandardCharsets.UTF_8).lines().toList());
  }
}
