package org.sparknet.bench.loop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * How a round's cost grows with the workers (bench/scaling): a loopback standalone cluster of one
 * Spark worker with as many cores as the largest N, one-core executors; for each N a driver JVM of
 * its own ({@link ScalingRounds}) trains the tiny net at tau 1 in {@code plain}, {@code allreduce}
 * and {@code downpour} mode. Every JVM records its socket calls ({@link SocketBytes}), so the bytes
 * through the driver and through each executor in a round are counted, not estimated; the rounds'
 * windows come from the driver's output. Each N is compared with {@link CostModel}'s prediction.
 *
 * <p>Options: {@code --workers 2,4,8,16,32}, {@code --rounds 5}, {@code --executor-memory 480m},
 * {@code --output FILE} (section {@code loop-scaling} is rewritten there).
 */
public final class ScalingSection {
  /**
   * What an executor JVM is taken to hold before one has been measured: its whole heap and this
   * much besides (Spark, Caffe's libraries, metaspace), in MB.
   */
  private static final long FIRST_GUESS_NATIVE_MB = 350;

  private ScalingSection() {}

  /** One measured round as {@link ScalingRounds} printed it. */
  record Round(String mode, int n, long from, long to, long wall, long compute, long pushes) {
    static Round parse(String line) {
      String[] f = line.split(" ");
      return new Round(
          f[1],
          Integer.parseInt(f[2]),
          Long.parseLong(f[3]),
          Long.parseLong(f[4]),
          Long.parseLong(f[5]),
          Long.parseLong(f[6]),
          Long.parseLong(f[7]));
    }

    SocketBytes.Span span() {
      return new SocketBytes.Span(from, to);
    }
  }

  /**
   * A mode at one N: medians over its rounds. Bytes are sent plus received per round; an executor's
   * are the mean and the largest over the executors.
   */
  record Row(
      String mode,
      int n,
      int rounds,
      double outsideMs,
      double computeMs,
      double driverBytes,
      double executorMeanBytes,
      double executorMaxBytes,
      double pushesPerSecond,
      double bytesPerPush,
      double heapMb) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = options(args);
    List<Integer> ns =
        Arrays.stream(o.get("workers").split(",")).map(Integer::parseInt).sorted().toList();
    int rounds = Integer.parseInt(o.get("rounds"));
    String mem = o.get("executor-memory");
    String before = Machine.loadAverage();
    double loopback = ClusterRounds.loopbackGBps(256) * 1e9;
    Path dir = Path.of("sparknet-bench/target/bench-scaling/run-" + System.currentTimeMillis());
    Path settings = SocketBytes.writeSettings(dir);
    int max = ns.get(ns.size() - 1);
    long workerMb = max * megabytes(mem);
    List<Row> rows = new ArrayList<>();
    List<String> ran = new ArrayList<>();
    List<String> loads = new ArrayList<>();
    long perExecutorMb = megabytes(mem) + FIRST_GUESS_NATIVE_MB;
    try (LoopbackCluster cluster = LoopbackCluster.start(dir, 1, max, workerMb + "m")) {
      for (int n : ns) {
        long need = n * perExecutorMb + 2048;
        long avail = availableMb();
        if (avail < need) {
          ran.add(
              String.format(
                  Locale.ROOT, "N=%d skipped: %,d MB available, %,d MB needed", n, avail, need));
          BenchRun.log("scaling: %s", ran.get(ran.size() - 1));
          continue;
        }
        AtomicLong rss = new AtomicLong();
        RunOfN run = runN(cluster, dir, settings, n, rounds, mem, rss);
        rows.addAll(run.rows());
        // The next N is judged by what these executors held, a fifth more for safety.
        perExecutorMb = rss.get() * 6 / 5 / n / 1048576 + 1;
        loads.add("N=" + n + ": " + Machine.loadAverage());
        ran.add(
            String.format(
                Locale.ROOT,
                "N=%d ran (executors' RSS at most %,d MB in all; the data RDD serialised, as every"
                    + " stage's task binary carries it: %,d bytes)",
                n,
                rss.get() >> 20,
                run.lineageBytes()));
        // Written after each N, so that a run stopped at a large N keeps the smaller ones.
        String md =
            ScalingReport.markdown(
                rows, loopback, mem, rounds, before, loads, ran, String.join(" ", args));
        MarkdownSections.rewrite(Path.of(o.get("output")), "loop-scaling", md);
        System.out.print(md);
      }
    }
  }

  /** One N's rows, and the data RDD's serialised size its driver printed (-1 without one). */
  private record RunOfN(List<Row> rows, long lineageBytes) {}

  private static RunOfN runN(
      LoopbackCluster cluster,
      Path dir,
      Path settings,
      int n,
      int rounds,
      String mem,
      AtomicLong rss)
      throws IOException, InterruptedException {
    Path jfr = Files.createDirectories(dir.resolve("jfr-" + n));
    Map<String, String> s = new LinkedHashMap<>(cluster.appSettings(mem));
    s.put(
        "spark.executor.extraJavaOptions",
        s.get("spark.executor.extraJavaOptions")
            + " "
            + SocketBytes.jvmOption(settings, jfr.resolve("executor-{{EXECUTOR_ID}}.jfr")));
    s.put("spark.cores.max", Integer.toString(n));
    s.put("spark.driver.maxResultSize", "0");
    Path driverJfr = jfr.resolve("driver.jfr");
    List<String> args =
        new ArrayList<>(
            List.of(cluster.masterUrl(), Integer.toString(n), driverJfr.toString(), "" + rounds));
    s.forEach((k, v) -> args.add(k + "=" + v));
    Thread sampler = rssSampler(cluster, rss);
    List<String> out;
    try {
      out =
          ChildJvm.run(
              ScalingRounds.class, "1g", args, Map.of(), dir.resolve("driver-" + n + ".log"));
    } finally {
      sampler.interrupt();
    }
    awaitNoExecutors(cluster);
    return new RunOfN(ScalingReport.rows(out, driverJfr, executorFiles(jfr)), lineageBytes(out));
  }

  /** The {@code lineage N BYTES} line of a driver's output; -1 without one. */
  static long lineageBytes(List<String> driverOut) {
    return driverOut.stream()
        .filter(l -> l.startsWith("lineage "))
        .mapToLong(l -> Long.parseLong(l.split(" ")[2]))
        .findFirst()
        .orElse(-1);
  }

  private static List<Path> executorFiles(Path jfr) throws IOException {
    try (Stream<Path> s = Files.list(jfr)) {
      return s.filter(p -> p.getFileName().toString().startsWith("executor-")).sorted().toList();
    }
  }

  /** Samples the summed resident memory of the cluster's executors every 2 s, keeping the peak. */
  private static Thread rssSampler(LoopbackCluster cluster, AtomicLong peak) {
    Thread t =
        new Thread(
            () -> {
              while (!Thread.currentThread().isInterrupted()) {
                long sum = cluster.executors(0).stream().mapToLong(ScalingSection::rssBytes).sum();
                peak.accumulateAndGet(sum, Math::max);
                try {
                  Thread.sleep(2000);
                } catch (InterruptedException e) {
                  return;
                }
              }
            },
            "rss-sampler");
    t.setDaemon(true);
    t.start();
    return t;
  }

  private static long rssBytes(ProcessHandle p) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/" + p.pid() + "/status"))) {
        if (l.startsWith("VmRSS:")) {
          return Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the executor exited between listing and reading
    }
    return 0;
  }

  /** Executors write their recordings as they exit: wait for them (at most 120 s). */
  private static void awaitNoExecutors(LoopbackCluster cluster) throws InterruptedException {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (!cluster.executors(0).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    Thread.sleep(1000);
  }

  static long availableMb() throws IOException {
    for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (l.startsWith("MemAvailable:")) {
        return Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024;
      }
    }
    return Long.MAX_VALUE;
  }

  static long megabytes(String size) {
    String s = size.toLowerCase(Locale.ROOT);
    long v = Long.parseLong(s.replaceAll("[^0-9]", ""));
    return s.endsWith("g") ? v * 1024 : v;
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("workers", "2,4,8,16,32");
    o.put("rounds", "5");
    // Spark refuses less than 450 MB (1.5 times its reserved 300 MB); a tiny net uses little of it.
    o.put("executor-memory", "480m");
    o.put("output", "sparknet-bench/target/bench-scaling.md");
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--") || !o.containsKey(args[i].substring(2))) {
        throw new IllegalArgumentException(
            "Unknown option "
                + args[i]
                + "; bench/scaling takes --"
                + String.join(", --", o.keySet()));
      }
      o.put(args[i].substring(2), args[i + 1]);
    }
    return o;
  }
}
