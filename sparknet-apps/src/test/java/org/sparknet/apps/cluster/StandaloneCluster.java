package org.sparknet.apps.cluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real Spark standalone cluster for integration tests: one {@code Master} and N {@code Worker}
 * JVMs (1 core each) started from sparknet-apps' own copy of Spark (target/spark-jars, made in the
 * package phase), and apps submitted to it with {@code SparkSubmit --master spark://...} in child
 * JVMs, the way users run the shaded jar. Everything lives under target/cluster/RUN: the master's
 * and workers' logs, the workers' directories (each executor's stdout and stderr in work/APP/N/),
 * and each submission's log.
 *
 * <p>Worker {@code i} listens on loopback address 127.0.0.{i+1}, so Spark sees N hosts: speculative
 * copies of a task only run on another host than the original, and locality is per host as on a
 * real cluster. Ports are chosen free.
 *
 * <p>{@link #close()} kills every process it started (with SIGKILL, children first), also from a
 * shutdown hook if the test JVM exits without closing.
 */
public final class StandaloneCluster implements AutoCloseable {
  public static final Path TARGET = Path.of("target").toAbsolutePath();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

  /** Seconds without heartbeats after which the master drops a worker. */
  public static final int WORKER_TIMEOUT_SECONDS = 20;

  /**
   * JIT and GC settings for the cluster's JVMs (master, workers, drivers, executors). Each lives
   * for seconds to a few minutes and does its heavy work in native Caffe, so the C2 compiler's
   * threads would mostly compete with the training for the CI machine's two cores; the client
   * compiler alone starts them with less CPU. One serial GC thread suits their heaps of at most 1
   * GB on such a machine.
   */
  static final List<String> SHORT_LIVED_JVM =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private static final Pattern ALIVE_WORKERS = Pattern.compile("\"aliveworkers\"\\s*:\\s*(\\d+)");

  private final Path dir;
  private final List<String> jvmFlags;
  private final Map<String, String> env;
  private final int masterPort;
  private final int webUiPort;
  private final List<Process> daemons = new ArrayList<>();
  private final List<Process> workers = new ArrayList<>();
  private final List<SparkSubmitProcess> submissions = new ArrayList<>();
  private final Thread shutdownHook = new Thread(this::killAll, "StandaloneCluster teardown");
  private boolean closed;
  private WorkerSpec workerSpec;

  private StandaloneCluster(Path dir) throws IOException {
    this.dir = dir;
    this.jvmFlags = clusterJvmFlags();
    this.masterPort = freePort();
    this.webUiPort = freePort();
    // The Worker builds each executor's class path from SPARK_HOME/jars, as in a Spark
    // distribution; ours is a link to the jars the build copied.
    Path home = dir.resolve("spark-home");
    Files.createDirectories(home);
    Files.createSymbolicLink(home.resolve("jars"), sparkJars());
    this.env =
        Map.of(
            "SPARK_HOME", home.toString(),
            "SPARK_SCALA_VERSION", "2.13",
            "GLOG_minloglevel", "2",
            "OPENBLAS_NUM_THREADS", "1");
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  /**
   * Starts a master and {@code workerCount} workers (1 core, {@code workerMemory} each, for example
   * "1g") and returns once all have registered with the master.
   */
  public static StandaloneCluster start(int workerCount, String workerMemory)
      throws IOException, InterruptedException {
    return start(workerCount, new WorkerSpec(1, workerMemory, Map.of()));
  }

  /**
   * How each worker is started: its cores and memory, and Spark settings of its own (for example
   * {@code spark.worker.resource.gpu.amount} and its discovery script).
   */
  public record WorkerSpec(int cores, String memory, Map<String, String> conf) {}

  /** Starts a master and {@code workerCount} workers of {@code spec}; see the method above. */
  public static StandaloneCluster start(int workerCount, WorkerSpec spec)
      throws IOException, InterruptedException {
    String run = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS"));
    Path dir = TARGET.resolve("cluster").resolve(run);
    Files.createDirectories(dir);
    StandaloneCluster c = new StandaloneCluster(dir);
    try {
      c.startMaster();
      c.workerSpec = spec;
      for (int i = 0; i < workerCount; i++) {
        Process p = c.startWorker(i, "worker-" + i);
        c.daemons.add(p);
        c.workers.add(p);
      }
      c.awaitAliveWorkers(workerCount, START_TIMEOUT);
      return c;
    } catch (IOException | InterruptedException | RuntimeException e) {
      c.close();
      throw e;
    }
  }

  /** spark://127.0.0.1:PORT */
  public String masterUrl() {
    return "spark://127.0.0.1:" + masterPort;
  }

  /** This cluster's directory under target/cluster (logs, worker directories). */
  public Path dir() {
    return dir;
  }

  /**
   * The JVM flags Spark needs on Java 17 (target/launcher/jvm-flags.txt) and {@link
   * #SHORT_LIVED_JVM}'s, for drivers and executors.
   */
  public List<String> jvmFlags() {
    return jvmFlags;
  }

  /** Workers the master currently counts as alive (its web UI's /json/). */
  public int aliveWorkers() {
    Matcher m = ALIVE_WORKERS.matcher(masterJson());
    if (!m.find()) {
      throw new IllegalStateException("No aliveworkers in the master's /json/: " + masterJson());
    }
    return Integer.parseInt(m.group(1));
  }

  /** The master's state as its web UI serves it (workers, applications). */
  public String masterJson() {
    try {
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create("http://127.0.0.1:" + webUiPort + "/json/").toURL().openConnection();
      c.setConnectTimeout(2000);
      c.setReadTimeout(5000);
      try (InputStream in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } finally {
        c.disconnect();
      }
    } catch (IOException e) {
      return "";
    }
  }

  /** Blocks until the master counts {@code n} alive workers. */
  public void awaitAliveWorkers(int n, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      String json = masterJson();
      Matcher m = ALIVE_WORKERS.matcher(json);
      if (m.find() && Integer.parseInt(m.group(1)) == n) {
        return;
      }
      for (Process p : daemons) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              "A cluster daemon exited with " + p.exitValue() + "; see the logs in " + dir);
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "The master did not count " + n + " alive workers in " + timeout + ": " + json);
      }
      Thread.sleep(200);
    }
  }

  /** The executor JVMs worker {@code i} runs now (CoarseGrainedExecutorBackend children). */
  public List<ProcessHandle> executors(int worker) {
    return workers
        .get(worker)
        .toHandle()
        .descendants()
        .filter(p -> ProcessTree.runs(p, "CoarseGrainedExecutorBackend"))
        .toList();
  }

  /** Waits until worker {@code i} runs an executor, and returns it. */
  public ProcessHandle awaitExecutor(int worker, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<ProcessHandle> ex = executors(worker);
      if (!ex.isEmpty()) {
        return ex.get(0);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Worker " + worker + " started no executor in " + timeout);
      }
      Thread.sleep(100);
    }
  }

  /** kill -9 of worker {@code i} and its executors: a machine lost for good. */
  public void killWorker(int worker) {
    Process p = workers.get(worker);
    daemons.remove(p);
    ProcessTree.kill(p.toHandle(), Duration.ofSeconds(10));
  }

  /**
   * Starts {@code SparkSubmit --master spark://... --conf K=V... --class SparkNetCli JAR ARGS} in a
   * child JVM (driver in client mode) whose class path is Spark only; output goes to {@code
   * dir()/NAME.log}. Executors get the JVM flags, glog and OpenBLAS settings; {@code conf} adds to
   * or overrides them.
   */
  public SparkSubmitProcess submit(
      String name, Path jar, Map<String, String> conf, Path log4j, List<String> appArgs)
      throws IOException {
    return submit(name, jar, "org.sparknet.apps.cli.SparkNetCli", List.of(), conf, log4j, appArgs);
  }

  /**
   * Like {@link #submit(String, Path, Map, Path, List)}, for any main class of {@code jar}, with
   * more jars on the driver's and executors' class paths ({@code --jars}).
   */
  public SparkSubmitProcess submit(
      String name,
      Path jar,
      String mainClass,
      List<Path> jars,
      Map<String, String> conf,
      Path log4j,
      List<String> appArgs)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin());
    // The driver runs in this JVM (client mode), so its heap is set here, as spark-submit's
    // --driver-memory sets it.
    cmd.add("-Xmx" + conf.getOrDefault("spark.driver.memory", "1g"));
    cmd.addAll(jvmFlags);
    cmd.add("-Dlog4j2.configurationFile=" + log4j);
    cmd.add("-cp");
    cmd.add(sparkJars() + File.separator + "*");
    cmd.add("org.apache.spark.deploy.SparkSubmit");
    cmd.add("--master");
    cmd.add(masterUrl());
    Map<String, String> all = new java.util.LinkedHashMap<>();
    all.put("spark.executor.extraJavaOptions", String.join(" ", jvmFlags));
    all.put("spark.executorEnv.GLOG_minloglevel", "2");
    all.put("spark.executorEnv.OPENBLAS_NUM_THREADS", "1");
    all.put("spark.executor.memory", "512m");
    all.putAll(conf);
    all.forEach(
        (k, v) -> {
          cmd.add("--conf");
          cmd.add(k + "=" + v);
        });
    if (!jars.isEmpty()) {
      cmd.add("--jars");
      cmd.add(String.join(",", jars.stream().map(Path::toString).toList()));
    }
    cmd.add("--class");
    cmd.add(mainClass);
    cmd.add(jar.toString());
    cmd.addAll(appArgs);
    Path log = dir.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    pb.environment().putAll(env);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    SparkSubmitProcess s = new SparkSubmitProcess(name, pb.start(), log);
    synchronized (submissions) {
      submissions.add(s);
    }
    return s;
  }

  private void startMaster() throws IOException {
    daemons.add(
        daemon(
            "master",
            "127.0.0.1",
            List.of(
                "org.apache.spark.deploy.master.Master",
                "--host",
                "127.0.0.1",
                "--port",
                Integer.toString(masterPort),
                "--webui-port",
                Integer.toString(webUiPort)),
            Map.of()));
  }

  /**
   * Starts worker {@code worker} again after {@link #killWorker}, as a new machine in the lost
   * one's place, so that a cluster shared between tests has all its workers for the next: waits
   * until the master has dropped the lost one, then until it counts the new one.
   */
  public void restartWorker(int worker) throws IOException, InterruptedException {
    Process lost = workers.get(worker);
    if (lost.isAlive()) {
      return;
    }
    Duration dropped = Duration.ofSeconds(3 * WORKER_TIMEOUT_SECONDS);
    awaitAliveWorkers(workers.size() - 1, dropped);
    Process p = startWorker(worker, "worker-" + worker + "-again-" + System.nanoTime());
    daemons.add(p);
    workers.set(worker, p);
    awaitAliveWorkers(workers.size(), START_TIMEOUT);
  }

  private Process startWorker(int i, String logName) throws IOException {
    WorkerSpec spec = workerSpec;
    String host = "127.0.0." + (i + 1);
    Path work = dir.resolve("worker-" + i);
    Files.createDirectories(work);
    return daemon(
        logName,
        host,
        List.of(
            "org.apache.spark.deploy.worker.Worker",
            "--host",
            host,
            "--cores",
            Integer.toString(spec.cores()),
            "--memory",
            spec.memory(),
            "--work-dir",
            work.toString(),
            "--webui-port",
            "0",
            masterUrl()),
        spec.conf());
  }

  private Process daemon(
      String name, String host, List<String> mainAndArgs, Map<String, String> sparkConf)
      throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin());
    cmd.add("-Xmx256m");
    cmd.addAll(jvmFlags);
    // Master and workers must agree: workers heartbeat every timeout/4, the master drops a worker
    // silent for the timeout. 20 s instead of 60 s so a lost worker shows soon, with room for a
    // loaded 2-core machine.
    cmd.add("-Dspark.worker.timeout=" + WORKER_TIMEOUT_SECONDS);
    sparkConf.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
    cmd.add("-cp");
    cmd.add(sparkJars() + File.separator + "*");
    cmd.addAll(mainAndArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.redirectOutput(dir.resolve(name + ".log").toFile());
    pb.environment().putAll(env);
    pb.environment().put("SPARK_LOCAL_IP", host);
    return pb.start();
  }

  /** The shaded apps jar built in the package phase (target/sparknet-apps-*-all.jar). */
  public static Path shadedJar() throws IOException {
    try (Stream<Path> s = Files.list(TARGET)) {
      return s.filter(f -> f.getFileName().toString().matches("sparknet-apps-.*-all\\.jar"))
          .findFirst()
          .orElseThrow(
              () ->
                  new IllegalStateException(
                      "No target/sparknet-apps-*-all.jar: run this IT through 'mvn verify',"
                          + " which builds it in the package phase"));
    }
  }

  private static Path sparkJars() {
    Path p = TARGET.resolve("spark-jars");
    if (!Files.isDirectory(p)) {
      throw new IllegalStateException(
          "No " + p + ": run this IT through 'mvn verify' (the package phase copies Spark there)");
    }
    return p;
  }

  /**
   * The JVM flags of every JVM a test cluster starts: those Spark needs on Java 17
   * (target/launcher/jvm-flags.txt) and {@link #SHORT_LIVED_JVM}'s.
   */
  static List<String> clusterJvmFlags() throws IOException {
    String flags = Files.readString(TARGET.resolve("launcher/jvm-flags.txt")).strip();
    List<String> all = new ArrayList<>(Arrays.asList(flags.split("\\s+")));
    all.addAll(SHORT_LIVED_JVM);
    return List.copyOf(all);
  }

  private static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** Kills the submissions, the workers with their executors, then the master. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    killAll();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // already shutting down
    }
  }

  private void killAll() {
    synchronized (submissions) {
      for (SparkSubmitProcess s : submissions) {
        s.kill();
      }
    }
    for (int i = daemons.size() - 1; i >= 0; i--) {
      ProcessTree.kill(daemons.get(i).toHandle(), Duration.ofSeconds(10));
    }
  }

  /** Reads a log file, empty when it does not exist. */
  static String read(Path log) {
    try {
      return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
