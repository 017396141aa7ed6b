package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a {@link GpuSchedulingApp} run left: the driver's output (a {@code ROUND r DEVICES [..]}
 * line a round) and the device log its engine wrote on the executors ({@link
 * DeviceRecorderProvider}).
 */
record GpuSchedulingRun(String output, Path deviceLog) {
  /** partition, assigned addresses, device: one per net built on an executor. */
  List<String[]> builtNets() throws IOException {
    List<String[]> out = new ArrayList<>();
    Pattern p = Pattern.compile("partition=(\\d+) .*assigned=(\\S*) device=(\\S+)");
    for (String line : Files.readAllLines(deviceLog)) {
      Matcher m = p.matcher(line);
      assertTrue(m.find(), line);
      out.add(new String[] {m.group(1), m.group(2), m.group(3)});
    }
    return out;
  }

  /** Each round's devices by partition, as the driver reported them. */
  List<List<String>> roundDevices() {
    List<List<String>> out = new ArrayList<>();
    Matcher m = Pattern.compile("ROUND \\d+ DEVICES \\[(.*)]").matcher(output);
    while (m.find()) {
      out.add(List.of(m.group(1).split(", ")));
    }
    assertEquals(3, out.size(), output);
    return out;
  }
}
