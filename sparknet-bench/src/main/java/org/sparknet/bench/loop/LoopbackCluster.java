package org.sparknet.bench.loop;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A Spark standalone cluster on this machine for the benchmarks: a {@code Master} and N {@code
 * Worker} JVMs (worker {@code i} on loopback address 127.0.0.{i+1}, one core each), started from
 * the benchmark's own class path. Each worker starts one executor JVM per application; executors
 * get the benchmark's class path (the jars through a {@code SPARK_HOME/jars} of links, which the
 * worker's launcher requires, the module class directories through {@code
 * spark.executor.extraClassPath}) and JVM flags. Logs and work directories go under {@code dir}.
 * {@link #close} kills every process it started, children first.
 */
final class LoopbackCluster implements AutoCloseable {
  private final Path dir;
  private final int port;
  private final Map<String, String> env;
  private final List<Process> daemons = new ArrayList<>();

  private LoopbackCluster(Path dir) throws IOException {
    this.dir = dir;
    this.port = freePort();
    Path jars = Files.createDirectories(dir.resolve("spark-home/jars"));
    for (String entry : classPath()) {
      Path p = Path.of(entry);
      if (entry.endsWith(".jar") && Files.isRegularFile(p)) {
        Path link = jars.resolve(p.getFileName());
        if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          Files.createSymbolicLink(link, p.toAbsolutePath());
        }
      }
    }
    this.env =
        Map.of(
            "SPARK_HOME", dir.resolve("spark-home").toString(),
            "SPARK_SCALA_VERSION", "2.13",
            "GLOG_minloglevel", "2",
            "OPENBLAS_NUM_THREADS", "1");
  }

  /** Starts a master and {@code workers} workers of {@code memory} each (for example "4g"). */
  static LoopbackCluster start(Path dir, int workers, String memory) throws IOException {
    return start(dir, workers, 1, memory);
  }

  /**
   * Starts a master and {@code workers} workers of {@code cores} cores and {@code memory} each: one
   * worker of many cores runs as many one-core executors (with {@code spark.executor.cores} 1)
   * without a worker JVM for each.
   */
  static LoopbackCluster start(Path dir, int workers, int cores, String memory) throws IOException {
    LoopbackCluster c = new LoopbackCluster(Files.createDirectories(dir));
    try {
      c.daemon(
          "master",
          "127.0.0.1",
          List.of(
              "org.apache.spark.deploy.master.Master",
              "--host",
              "127.0.0.1",
              "--port",
              Integer.toString(c.port),
              "--webui-port",
              Integer.toString(freePort())));
      for (int i = 0; i < workers; i++) {
        String host = "127.0.0." + (i + 1);
        c.daemon(
            "worker-" + i,
            host,
            List.of(
                "org.apache.spark.deploy.worker.Worker",
                "--host",
                host,
                "--cores",
                Integer.toString(cores),
                "--memory",
                memory,
                "--work-dir",
                Files.createDirectories(dir.resolve("work-" + i)).toString(),
                "--webui-port",
                "0",
                c.masterUrl()));
      }
      return c;
    } catch (IOException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  String masterUrl() {
    return "spark://127.0.0.1:" + port;
  }

  /** The executor JVMs worker {@code i} runs now (its CoarseGrainedExecutorBackend children). */
  List<ProcessHandle> executors(int worker) {
    return daemons
        .get(worker + 1) // the master first
        .toHandle()
        .children()
        .filter(
            p ->
                p.info()
                    .arguments()
                    .map(a -> String.join(" ", a).contains("CoarseGrainedExecutorBackend"))
                    .orElse(false))
        .toList();
  }

  /** Spark settings for an application on this cluster: executors of {@code memory}. */
  Map<String, String> appSettings(String memory) {
    List<String> dirs = new ArrayList<>();
    for (String entry : classPath()) {
      if (!entry.endsWith(".jar")) {
        dirs.add(Path.of(entry).toAbsolutePath().toString());
      }
    }
    Map<String, String> m = new LinkedHashMap<>();
    m.put("spark.executor.extraClassPath", String.join(File.pathSeparator, dirs));
    m.put("spark.executor.extraJavaOptions", String.join(" ", jvmFlags()));
    m.put("spark.executor.memory", memory);
    m.put("spark.executor.cores", "1");
    m.put("spark.executorEnv.GLOG_minloglevel", "2");
    m.put("spark.executorEnv.OPENBLAS_NUM_THREADS", "1");
    m.put("spark.driver.host", "127.0.0.1");
    return m;
  }

  private void daemon(String name, String host, List<String> mainAndArgs) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    cmd.addAll(jvmFlags());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(mainAndArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(dir.resolve(name + ".log").toFile());
    pb.environment().putAll(env);
    pb.environment().put("SPARK_LOCAL_IP", host);
    daemons.add(pb.start());
  }

  private static List<String> classPath() {
    return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
  }

  /** This JVM's flags (Spark's --add-opens, log4j), without heap sizes. */
  private static List<String> jvmFlags() {
    List<String> out = new ArrayList<>();
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!a.startsWith("-Xmx") && !a.startsWith("-Xms") && !a.startsWith("-agentlib")) {
        out.add(a);
      }
    }
    return out;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kills the workers (and their executors), then the master. Idempotent. */
  @Override
  public void close() {
    for (int i = daemons.size() - 1; i >= 0; i--) {
      ProcessHandle h = daemons.get(i).toHandle();
      h.descendants().forEach(ProcessHandle::destroyForcibly);
      h.destroyForcibly();
      try {
        h.onExit().get(Duration.ofSeconds(10).toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception e) {
        BenchRun.log("cluster: %s did not exit in 10 s", h.pid());
      }
    }
    daemons.clear();
  }
}
