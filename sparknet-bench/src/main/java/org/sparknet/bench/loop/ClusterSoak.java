package org.sparknet.bench.loop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;

/**
 * The fault soak ({@code bench/soak-cluster}, docs/faults.md): LeNet on Fashion-MNIST (60,000
 * training, 10,000 test images) on a standalone cluster of two 1-core workers on loopback ({@link
 * LoopbackCluster}), 2 workers, tau 5, {@code --deterministic}, ROUNDS rounds (default 200), the
 * driver in this JVM. Run twice: clean, then with worker 1's executor killed (kill -9) in the
 * middle of every KILL_EVERY-th round (default 20) after its round KILL_EVERY. Worker 0's executor
 * runs both whole runs: its resident memory is read every KILL_EVERY rounds. The warm-up ends after
 * round 2 × KILL_EVERY: by then the survivor has taken over a killed worker's partition once and
 * handed it back (a net built and closed, malloc's arenas grown once); a leak would go on growing
 * with every later kill. The growth from round KILL_EVERY is printed too. Prints, and exits 1
 * unless all hold: the faulty run's test accuracy within 0.5 point of the clean run's; never more
 * than one executor per worker between rounds, none left 30 s after the application stopped; the
 * survivor's RSS growth under 5 % of its resident memory outside the Java heap (the executors' heap
 * is committed and touched from the start).
 *
 * <p>Arguments: {@code [ROUNDS [KILL_EVERY [FASHION_MNIST_DIR]]]}.
 */
public final class ClusterSoak {
  private static final int TAU = 5;
  private static final double MAX_ACCURACY_GAP = 0.005;
  private static final double MAX_RSS_GROWTH = 0.05;
  private static final String EXECUTOR_HEAP = "2g";
  private static final long HEAP_BYTES = 2L << 30;

  private final LoopbackCluster cluster;
  private final int rounds;
  private final int killEvery;
  private final Path data;

  /** What one run measured. */
  record Outcome(
      double accuracy, int kills, int mostExecutorsPerWorker, long survivorRssWarm, long rssEnd) {
    /**
     * Growth of the resident memory outside the Java heap, over what it was after warm-up: the heap
     * is committed and touched from the start, so it is a constant part of RSS, left out of the
     * base (a stricter base than the whole RSS).
     */
    double rssGrowth() {
      return (rssEnd - survivorRssWarm) / (double) (survivorRssWarm - HEAP_BYTES);
    }
  }

  private ClusterSoak(LoopbackCluster cluster, int rounds, int killEvery, Path data) {
    this.cluster = cluster;
    this.rounds = rounds;
    this.killEvery = killEvery;
    this.data = data;
  }

  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int killEvery = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Path data = args.length > 2 ? Path.of(args[2]) : null;
    if (rounds < 3 * killEvery) {
      throw new IllegalArgumentException(
          "ROUNDS "
              + rounds
              + " must be at least three times KILL_EVERY "
              + killEvery
              + " (a warm-up of two kill cycles, then at least one)");
    }
    Path dir = Files.createDirectories(Path.of("sparknet-bench/target/soak-cluster"));
    boolean ok;
    try (LoopbackCluster cluster =
        LoopbackCluster.start(dir.resolve("run-" + System.currentTimeMillis()), 2, "3g")) {
      ClusterSoak soak = new ClusterSoak(cluster, rounds, killEvery, data);
      Outcome clean = soak.run(false);
      int leftClean = soak.executorsLeft();
      Outcome faulty = soak.run(true);
      int leftFaulty = soak.executorsLeft();
      ok = report(rounds, killEvery, clean, faulty, leftClean + leftFaulty);
    }
    System.exit(ok ? 0 : 1);
  }

  /** Prints the figures (docs/faults.md's soak rows); true when every limit holds. */
  private static boolean report(
      int rounds, int killEvery, Outcome clean, Outcome faulty, int executorsLeft) {
    double gap = Math.abs(faulty.accuracy() - clean.accuracy());
    boolean ok =
        gap <= MAX_ACCURACY_GAP
            && faulty.kills() == rounds / killEvery - 1
            && Math.max(clean.mostExecutorsPerWorker(), faulty.mostExecutorsPerWorker()) <= 1
            && executorsLeft == 0
            && faulty.rssGrowth() < MAX_RSS_GROWTH
            && clean.rssGrowth() < MAX_RSS_GROWTH;
    System.out.printf(
        Locale.ROOT,
        "soak: %d rounds, tau %d, executor of worker 1 killed %d times (every %d rounds)%n"
            + "accuracy clean %.4f, with kills %.4f, gap %.2f points (limit 0.5)%n"
            + "most executors per worker between rounds: %d; executors left after the runs: %d%n"
            + "survivor RSS after round %d (warm-up) / last round: clean %d / %d MB (%+.1f %% of what is"
            + " outside its pre-touched 2 GiB heap), with kills %d / %d MB (%+.1f %%)"
            + " (limit 5 %%)%n%s%n",
        rounds,
        TAU,
        faulty.kills(),
        killEvery,
        clean.accuracy(),
        faulty.accuracy(),
        gap * 100,
        Math.max(clean.mostExecutorsPerWorker(), faulty.mostExecutorsPerWorker()),
        executorsLeft,
        2 * killEvery,
        clean.survivorRssWarm() >> 20,
        clean.rssEnd() >> 20,
        clean.rssGrowth() * 100,
        faulty.survivorRssWarm() >> 20,
        faulty.rssEnd() >> 20,
        faulty.rssGrowth() * 100,
        ok ? "soak: PASS" : "soak: FAIL");
    return ok;
  }

  /** One application: ROUNDS rounds, then the test set; kills when {@code kill}. */
  private Outcome run(boolean kill) throws Exception {
    SparkSession.Builder b =
        SparkSettings.apply(SparkSession.builder()).master(cluster.masterUrl());
    b.appName(kill ? "SparkNet soak, executor kills" : "SparkNet soak, clean");
    Map<String, String> settings = cluster.appSettings(EXECUTOR_HEAP);
    // The executors' heap committed and touched from the start: RSS then grows only with what is
    // outside the Java heap (native nets, malloc arenas, metaspace, Netty's buffers), which is what
    // a leak would grow; G1 committing more of its heap late in a run is not one.
    settings.merge(
        "spark.executor.extraJavaOptions",
        "-Xms" + EXECUTOR_HEAP + " -XX:+AlwaysPreTouch",
        (a, extra) -> a + " " + extra);
    settings.forEach(b::config);
    SparkSession spark = b.getOrCreate();
    ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor();
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      ClusterRounds.awaitExecutors(sc, 2);
      FashionMnist fm = FashionMnist.locate(data);
      TrainerConfig cfg =
          TrainerConfig.builder()
              .setNetDefinition(BenchNets.lenet(BenchRun.SEED, BenchRun.LR).definition())
              .optTau(TAU)
              .optWorkers(2)
              .optSeed(BenchRun.SEED)
              .optDeterministic(true)
              .build();
      try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
        t.setTrainingData(fm.train().toRdd(sc, 2, 1f / 256));
        JavaRDD<Example> test = fm.test().toRdd(sc, 2, 1f / 256);
        t.setValidationData(test);
        return rounds(t, kill, killer);
      }
    } finally {
      killer.shutdownNow();
      spark.stop();
    }
  }

  private Outcome rounds(SparkNetTrainer t, boolean kill, ScheduledExecutorService killer)
      throws Exception {
    ProcessHandle survivor = only(cluster.executors(0));
    long first = 0;
    long warm = 0;
    int kills = 0;
    int most = 0;
    List<String> lost = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Long> series = new ArrayList<>();
    List<Long> wallSeries = new ArrayList<>();
    long wallSum = 0;
    for (int r = 1; r <= rounds; r++) {
      RoundMetrics m = t.trainRound();
      wallSum += m.wallMillis();
      for (int w = 0; w < 2; w++) {
        most = Math.max(most, cluster.executors(w).size());
      }
      if (r % killEvery == 0) {
        long now = rss(survivor);
        first = r == killEvery ? now : first;
        warm = r == 2 * killEvery ? now : warm;
        series.add(now >> 20);
        wallSeries.add(wallSum / killEvery);
        wallSum = 0;
      }
      if (kill && r % killEvery == 0 && r < rounds) {
        // Mid-way through the next round's steps (a round is mostly solver steps).
        long delay = Math.max(1, m.wallMillis() / 2);
        killer.schedule(
            () -> cluster.executors(1).forEach(p -> lost.add(killNow(p))),
            delay,
            TimeUnit.MILLISECONDS);
        kills++;
      }
      if (r % 50 == 0) {
        BenchRun.log("soak %s: round %d, %s", kill ? "kills" : "clean", r, m.summary());
      }
    }
    long end = rss(survivor);
    if (!survivor.isAlive()) {
      throw new IllegalStateException("worker 0's executor " + survivor.pid() + " died");
    }
    double accuracy = t.test().get("accuracy");
    BenchRun.log("soak %s: killed executors %s", kill ? "kills" : "clean", lost);
    BenchRun.log(
        "soak %s: survivor RSS (MB) after rounds %d, %d, ...: %s",
        kill ? "kills" : "clean", killEvery, 2 * killEvery, series);
    // A survivor left with both partitions trains them one after the other: rounds twice as long.
    BenchRun.log(
        "soak %s: mean round wall time (ms) of rounds 1-%d, %d-%d, ...: %s",
        kill ? "kills" : "clean", killEvery, killEvery + 1, 2 * killEvery, wallSeries);
    BenchRun.log(
        "soak %s: survivor RSS from round %d to the end: %+d MB (%+.1f %% of what is outside the"
            + " heap)",
        kill ? "kills" : "clean",
        killEvery,
        (end - first) >> 20,
        100.0 * (end - first) / (first - HEAP_BYTES));
    return new Outcome(accuracy, kills, most, warm, end);
  }

  private static String killNow(ProcessHandle p) {
    p.destroyForcibly();
    return Long.toString(p.pid());
  }

  /** Executor JVMs still running 30 s after the application stopped (0 when none leaked). */
  private int executorsLeft() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    int left;
    do {
      Thread.sleep(500);
      left = cluster.executors(0).size() + cluster.executors(1).size();
    } while (left > 0 && System.nanoTime() < deadline);
    return left;
  }

  private static ProcessHandle only(List<ProcessHandle> executors) {
    if (executors.size() != 1) {
      throw new IllegalStateException("expected one executor on worker 0, found " + executors);
    }
    return executors.get(0);
  }

  /** Resident set size of {@code p} in bytes (VmRSS of /proc/PID/status). */
  private static long rss(ProcessHandle p) throws java.io.IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(p.pid()), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
      }
    }
    throw new IllegalStateException("no VmRSS for process " + p.pid());
  }
}
