package org.sparknet.bench.loop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bin/sparknet demo ARGS} as a user runs it, in a process of its own, with the wall clock
 * started just before the process: what the first test that shows an accuracy costs includes the
 * JVM's and Spark's start, loading the data and every test before it.
 */
final class DemoProcess {
  /** A round line's test; not the closing "Final test accuracy", which repeats the last one. */
  private static final Pattern TEST = Pattern.compile(" {2}test accuracy (\\d\\.\\d+)");

  private DemoProcess() {}

  /** A test the demo printed: seconds since the process started, and the accuracy it showed. */
  record Test(double seconds, double accuracy) {}

  /** What a run printed: its tests in order, its total wall time and its standard output. */
  record Run(List<Test> tests, double seconds, List<String> lines) {
    /** Seconds to the first test at or above {@code target}, or NaN. */
    double secondsTo(double target) {
      return tests.stream()
          .filter(t -> t.accuracy() >= target)
          .mapToDouble(Test::seconds)
          .findFirst()
          .orElse(Double.NaN);
    }

    /** The best accuracy of a test printed within {@code seconds}, or NaN. */
    double bestWithin(double seconds) {
      return tests.stream()
          .filter(t -> t.seconds() <= seconds)
          .mapToDouble(Test::accuracy)
          .max()
          .orElse(Double.NaN);
    }
  }

  /** Runs {@code bin/sparknet demo} with {@code args} from the repository root {@code root}. */
  static Run run(Path root, List<String> args, Path log) {
    return run(root, List.of(), args, log);
  }

  /**
   * Runs {@code bin/sparknet demo} with {@code args} under {@code prefix} (a command that runs it,
   * such as {@code taskset -c 0}).
   */
  static Run run(Path root, List<String> prefix, List<String> args, Path log) {
    List<String> cmd = new ArrayList<>(prefix);
    cmd.addAll(List.of(root.resolve("bin/sparknet").toString(), "demo"));
    cmd.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(cmd).directory(root.toFile()).redirectError(log.toFile());
    List<Test> tests = new ArrayList<>();
    List<String> lines = new ArrayList<>();
    long start = System.nanoTime();
    int exit =
        Processes.run(
            pb,
            String.join(" ", cmd),
            line -> {
              double at = BenchRun.seconds(start);
              lines.add(line);
              Matcher m = TEST.matcher(line);
              if (m.find()) {
                tests.add(new Test(at, Double.parseDouble(m.group(1))));
              }
              BenchRun.log("  demo %.1f s: %s", at, line);
            });
    if (exit != 0) {
      throw new IllegalStateException(
          "bin/sparknet demo " + args + " exited with " + exit + "; see " + log.toAbsolutePath());
    }
    return new Run(tests, BenchRun.seconds(start), lines);
  }
}
