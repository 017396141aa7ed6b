package org.sparknet.bench.loop;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A second JVM for a measurement that needs a Spark context of its own (one context per JVM): the
 * benchmark's class path, JVM flags and environment, another heap size. Its standard output comes
 * back as lines ({@code KEY VALUE...} by convention); its standard error goes to a log file.
 */
final class ChildJvm {
  private ChildJvm() {}

  /** Runs {@code main} with {@code args}; returns its output lines, or fails naming the log. */
  static List<String> run(
      Class<?> main, String heap, List<String> args, Map<String, String> env, Path log) {
    return run(main, heap, List.of(), System.getProperty("java.class.path"), args, env, log);
  }

  /**
   * Runs {@code main} as {@link #run(Class, String, List, Map, Path)} does, with {@code jvmOptions}
   * (system properties, say) after the benchmark's own and {@code classPath} in place of the
   * benchmark's.
   */
  static List<String> run(
      Class<?> main,
      String heap,
      List<String> jvmOptions,
      String classPath,
      List<String> args,
      Map<String, String> env,
      Path log) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!a.startsWith("-Xmx") && !a.startsWith("-Xms") && !a.startsWith("-agentlib")) {
        cmd.add(a);
      }
    }
    cmd.add("-Xmx" + heap);
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(main.getName());
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(log.toFile());
    // An empty value removes the variable, so that a child can run without one the parent has.
    env.forEach(
        (k, v) -> {
          if (v.isEmpty()) {
            pb.environment().remove(k);
          } else {
            pb.environment().put(k, v);
          }
        });
    List<String> out = new ArrayList<>();
    int exit =
        Processes.run(
            pb,
            main.getName(),
            line -> {
              out.add(line);
              BenchRun.log("  %s: %s", main.getSimpleName(), line);
            });
    if (exit != 0) {
      throw new IllegalStateException(
          main.getSimpleName() + " exited with " + exit + "; see " + log.toAbsolutePath());
    }
    return out;
  }

  /** The value of the first {@code KEY value} line, or NaN. */
  static double value(List<String> lines, String key) {
    for (String l : lines) {
      String[] f = l.trim().split("\\s+");
      if (f.length >= 2 && f[0].equals(key)) {
        return Double.parseDouble(f[1]);
      }
    }
    return Double.NaN;
  }
}
