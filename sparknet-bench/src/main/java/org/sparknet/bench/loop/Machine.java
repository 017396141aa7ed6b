package org.sparknet.bench.loop;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** What the figures were measured on: CPU, memory, load, JVM (read from /proc on Linux). */
final class Machine {
  private Machine() {}

  static int processors() {
    return Runtime.getRuntime().availableProcessors();
  }

  static String cpuModel() {
    for (String line : lines("/proc/cpuinfo")) {
      if (line.startsWith("model name")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return System.getProperty("os.arch");
  }

  static String memory() {
    for (String line : lines("/proc/meminfo")) {
      if (line.startsWith("MemTotal:")) {
        long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
        return String.format(Locale.ROOT, "%.1f GiB (MemTotal %,d kB)", kb / 1048576.0, kb);
      }
    }
    return "unknown";
  }

  /** The 1, 5 and 15 minute load averages, as /proc/loadavg gives them. */
  static String loadAverage() {
    List<String> l = lines("/proc/loadavg");
    if (l.isEmpty()) {
      return String.format(
          Locale.ROOT, "%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
    String[] f = l.get(0).split(" ");
    return f[0] + " " + f[1] + " " + f[2];
  }

  static String jvm() {
    return System.getProperty("java.vm.name")
        + " "
        + System.getProperty("java.runtime.version")
        + " ("
        + System.getProperty("java.vendor")
        + "), max heap "
        + Runtime.getRuntime().maxMemory() / (1 << 20)
        + " MiB";
  }

  static String osName() {
    return System.getProperty("os.name") + " " + System.getProperty("os.version");
  }

  private static List<String> lines(String path) {
    try {
      return Files.readAllLines(Path.of(path));
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
