package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.sparknet.apps.testing.CliFixtures;

/**
 * The loopback standalone cluster the cluster ITs share for {@code train} runs under spark-submit
 * (two Spark workers of one core): the shaded jar, 6,000/2,000 Fashion-MNIST images as IDX files,
 * Caffe's unchanged LeNet solver, and a driver logging configuration that adds the INFO lines of
 * the loggers the tests read (task attempts, stages, allocation, the ring's rounds). It starts once
 * per test JVM, as {@link MiniYarn} does, and ends with it (StandaloneCluster's shutdown hook);
 * each test class takes a view of it for its scenario, with a directory and log names of its own,
 * so that each states only its cluster settings and the {@code train} options that differ.
 */
final class TrainingCluster implements AutoCloseable {
  private static final Pattern ACCURACY = Pattern.compile("Final test: accuracy (\\d+\\.\\d+)");
  private static final Pattern EXAMPLES = Pattern.compile("\"examples\":(\\d+)");

  /** The shared cluster's workers. */
  static final int WORKERS = 2;

  private static final String[] INFO_LOGGERS = {
    "org.apache.spark.scheduler.TaskSetManager",
    "org.apache.spark.scheduler.DAGScheduler",
    "org.apache.spark.ExecutorAllocationManager",
    "org.sparknet.api.internal.driver.AllReduceRound"
  };

  private static TrainingCluster shared;

  private final StandaloneCluster cluster;
  private final Path jar;
  private final Path data;
  private final Path solver;
  private final Path log4j;
  private final String scenario;
  private final List<SparkSubmitProcess> drivers = new ArrayList<>();

  private TrainingCluster(
      StandaloneCluster cluster, Path jar, Path log4j, Path data, Path solver, String scenario) {
    this.cluster = cluster;
    this.jar = jar;
    this.log4j = log4j;
    this.data = data;
    this.solver = solver;
    this.scenario = scenario;
  }

  /**
   * The shared cluster, started on the first call, as seen by {@code scenario} (a test class's
   * name): its directory is the cluster's SCENARIO folder and its drivers' logs SCENARIO-NAME.log.
   */
  static synchronized TrainingCluster shared(String scenario) throws Exception {
    if (shared == null) {
      shared = start();
    }
    Files.createDirectories(shared.cluster.dir().resolve(scenario));
    return new TrainingCluster(
        shared.cluster, shared.jar, shared.log4j, shared.data, shared.solver, scenario);
  }

  private static TrainingCluster start() throws Exception {
    StandaloneCluster cluster = StandaloneCluster.start(WORKERS, "1g");
    try {
      Path dir = cluster.dir();
      Path log4j = dir.resolve("driver-log4j2.properties");
      StringBuilder conf =
          new StringBuilder(
              Files.readString(StandaloneCluster.TARGET.resolve("launcher/log4j2.properties")));
      for (int i = 0; i < INFO_LOGGERS.length; i++) {
        conf.append("\nlogger.test").append(i).append(".name = ").append(INFO_LOGGERS[i]);
        conf.append("\nlogger.test").append(i).append(".level = info\n");
      }
      Files.writeString(log4j, conf);
      Path data = dir.resolve("data");
      CliFixtures.fashionMnistSubset(data, 6000, 2000);
      Path solver = CliFixtures.caffeLeNet(dir.resolve("caffe"));
      return new TrainingCluster(cluster, StandaloneCluster.shadedJar(), log4j, data, solver, null);
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  StandaloneCluster cluster() {
    return cluster;
  }

  /** This scenario's directory. */
  Path dir() {
    return cluster.dir().resolve(scenario);
  }

  Path jar() {
    return jar;
  }

  Path log4j() {
    return log4j;
  }

  /**
   * {@code train} of LeNet on the local IDX files with {@code workers}, {@code tau} and {@code
   * rounds}, writing to {@code out}; {@code more} options are appended.
   */
  List<String> trainArgs(Path out, int workers, int tau, int rounds, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                CliFixtures.trainArgs(
                    solver,
                    data,
                    "--format",
                    "idx",
                    "--workers",
                    Integer.toString(workers),
                    "--tau",
                    Integer.toString(tau),
                    "--rounds",
                    Integer.toString(rounds),
                    "--output",
                    out.toString())));
    args.addAll(List.of(more));
    return args;
  }

  /** Submits {@code args} as app {@code name} with {@code conf} added to Spark's settings. */
  SparkSubmitProcess submit(String name, Map<String, String> conf, List<String> args)
      throws IOException {
    SparkSubmitProcess driver = cluster.submit(scenario + "-" + name, jar, conf, log4j, args);
    drivers.add(driver);
    return driver;
  }

  /** Waits until the driver has logged {@code rounds} rounds to OUT/metrics.jsonl. */
  static void awaitRounds(SparkSubmitProcess driver, Path out, int rounds, Duration timeout)
      throws Exception {
    Path metrics = out.resolve("metrics.jsonl");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!Files.exists(metrics) || Files.readAllLines(metrics).size() < rounds) {
      assertTrue(
          driver.isAlive(), "driver exited before round " + rounds + ":\n" + driver.output());
      assertTrue(System.nanoTime() < deadline, "no round " + rounds + ":\n" + driver.output());
      Thread.sleep(20);
    }
  }

  /**
   * Copies round {@code round}'s checkpoint from {@code ckpt} into the directory {@code copy} as
   * soon as it appears there, while {@code driver} trains on. A checkpoint appears under its name
   * complete (it is written by rename), and the directory keeps only the newest two, so the copy is
   * taken within two rounds of its write.
   */
  static void keepCheckpoint(
      SparkSubmitProcess driver, Path ckpt, int round, Path copy, Duration timeout)
      throws Exception {
    Path file = ckpt.resolve(String.format("round-%06d.ckpt", round));
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!Files.exists(file)) {
      assertTrue(
          driver.isAlive(), "driver exited before checkpoint " + round + ":\n" + driver.output());
      assertTrue(System.nanoTime() < deadline, "no checkpoint " + round + ":\n" + driver.output());
      Thread.sleep(20);
    }
    Files.createDirectories(copy);
    Files.copy(file, copy.resolve(file.getFileName()));
  }

  /** The final test accuracy the CLI printed in {@code log}. */
  static double accuracy(String log) {
    Matcher m = ACCURACY.matcher(log);
    assertTrue(m.find(), "no final accuracy in:\n" + log);
    return Double.parseDouble(m.group(1));
  }

  /** Examples trained on in each round, from OUT/metrics.jsonl (the trainer's RoundMetrics). */
  static List<Long> examplesPerRound(Path out) throws IOException {
    List<Long> n = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("metrics.jsonl"))) {
      Matcher m = EXAMPLES.matcher(line);
      assertTrue(m.find(), line);
      n.add(Long.parseLong(m.group(1)));
    }
    return n;
  }

  /**
   * The executor of the first {@code workers} Spark workers that used the most CPU in the next 150
   * ms: one running a round's task.
   */
  ProcessHandle busiestExecutor(int workers) throws InterruptedException {
    List<ProcessHandle> all = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      all.addAll(cluster.executors(w));
    }
    assertTrue(!all.isEmpty(), "no executors");
    long[] before = all.stream().mapToLong(TrainingCluster::cpuMillis).toArray();
    Thread.sleep(150);
    int best = 0;
    long bestDelta = -1;
    for (int i = 0; i < all.size(); i++) {
      long d = cpuMillis(all.get(i)) - before[i];
      if (d > bestDelta) {
        bestDelta = d;
        best = i;
      }
    }
    return all.get(best);
  }

  static long cpuMillis(ProcessHandle p) {
    return p.info().totalCpuDuration().map(Duration::toMillis).orElse(0L);
  }

  /**
   * Kills this scenario's drivers still running (a test that failed before its driver ended), so
   * that they hold none of the shared cluster's cores; the cluster itself stays up.
   */
  @Override
  public void close() {
    drivers.forEach(SparkSubmitProcess::kill);
  }
}
