package org.sparknet.api.train;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RoundListener} that prints where each worker ran ({@link RoundMetrics#devices()}) before
 * the first round's own line, and again whenever a worker's net moved to another device:
 *
 * <pre>
 * devices: worker 0 gpu:0, worker 1 gpu:1
 * </pre>
 *
 * The CLI commands and {@link RoundProgress} print it; register it before a listener that prints
 * the round.
 */
public final class DeviceReport implements RoundListener {
  private final PrintStream out;
  private List<String> shown = List.of();

  public DeviceReport(PrintStream out) {
    this.out = Objects.requireNonNull(out, "out");
  }

  @Override
  public void onRound(RoundMetrics m) {
    if (!m.devices().isEmpty() && !m.devices().equals(shown)) {
      shown = new ArrayList<>(m.devices());
      out.println(line(shown));
    }
  }

  /** "devices: worker 0 cpu, worker 1 gpu:0,gpu:1" ("(no data)" for a partition without data). */
  public static String line(List<String> devices) {
    StringBuilder sb = new StringBuilder("devices:");
    for (int p = 0; p < devices.size(); p++) {
      sb.append(p == 0 ? " " : ", ").append("worker ").append(p).append(' ');
      sb.append(devices.get(p) == null ? "(no data)" : devices.get(p));
    }
    return sb.toString();
  }
}
