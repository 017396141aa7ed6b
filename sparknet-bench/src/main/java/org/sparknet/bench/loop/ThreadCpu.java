package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of every native thread of this JVM, from Linux's {@code /proc/self/task/TID/stat}: the
 * JVM's own threads (GC, JIT compilers) included, which {@code ThreadMXBean} does not see.
 */
final class ThreadCpu {
  /** Linux's USER_HZ: utime and stime are in these ticks on every Linux architecture Java runs. */
  static final double TICKS_PER_SECOND = 100;

  private ThreadCpu() {}

  /** One thread: its name (Linux keeps 15 characters) and user + system ticks so far. */
  record Sample(String name, long ticks) {}

  /** Every live thread of this process by thread id. */
  static Map<Integer, Sample> snapshot() {
    Map<Integer, Sample> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path t : (Iterable<Path>) tasks::iterator) {
        try {
          out.put(
              Integer.parseInt(t.getFileName().toString()),
              parse(Files.readString(t.resolve("stat"))));
        } catch (NoSuchFileException gone) {
          // the thread ended between the listing and the read: it is counted as ended
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read /proc/self/task (Linux only)", e);
    }
    return out;
  }

  /** Parses a stat line: the name is between the first '(' and the last ')'. */
  static Sample parse(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    String name = stat.substring(open + 1, close);
    String[] f = stat.substring(close + 2).trim().split("\\s+");
    // after the name: state(0) ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
    // cmajflt utime(11) stime(12)
    return new Sample(name, Long.parseLong(f[11]) + Long.parseLong(f[12]));
  }

  /**
   * A thread's group: its name without a trailing number ("GC Thread#3" and "GC Thread#0" alike).
   */
  static String group(String name) {
    return name.replaceAll("[#\\-_ ]?\\d+$", "").trim();
  }

  /**
   * CPU seconds per group between two snapshots; threads started in between count from zero, and
   * threads that ended in between are lost (the caller says so).
   */
  static Map<String, double[]> perGroup(Map<Integer, Sample> before, Map<Integer, Sample> after) {
    Map<String, double[]> out = new TreeMap<>();
    after.forEach(
        (tid, s) -> {
          Sample b = before.get(tid);
          long ticks = s.ticks() - (b != null && b.name().equals(s.name()) ? b.ticks() : 0);
          double[] g = out.computeIfAbsent(group(s.name()), k -> new double[2]);
          g[0] += ticks / TICKS_PER_SECOND;
          g[1] += ticks > 0 ? 1 : 0;
        });
    return out;
  }
}
