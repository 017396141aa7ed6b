package org.sparknet.bench.loop;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Section {@code allreduce}: the AlexNet-sized round (tau 1) on a standalone cluster of 3 executor
 * JVMs on loopback ({@link LoopbackCluster}, driven by {@link AllReduceRounds}), with the driver's
 * average and with the all-reduce between executors, on 2 and 3 workers: the round's time, the
 * bytes through the driver (task results and broadcast pieces the executors stored, from Spark's
 * events), and the all-reduce's GB/s per executor (what each executor sends and receives in the
 * ring, 12·(N−1)/N bytes a weight, over the round's time outside the solver steps).
 */
final class AllReduceSection {
  private static final long ALEXNET_FLOATS = 60_965_224L;

  private final LoopOptions opt;

  AllReduceSection(BenchRun run) {
    this.opt = run.opt();
  }

  void run() throws Exception {
    String load = Machine.loadAverage();
    Path dir = Files.createDirectories(Path.of("sparknet-bench/target/bench-allreduce"));
    String executorMemory = "4g";
    List<String> out;
    try (LoopbackCluster cluster =
        LoopbackCluster.start(dir.resolve("run-" + System.currentTimeMillis()), 3, "5g")) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  cluster.masterUrl(),
                  opt.quick() ? "quick" : "full",
                  opt.data() == null ? "-" : opt.data().toString()));
      cluster.appSettings(executorMemory).forEach((k, v) -> args.add(k + "=" + v));
      out = ChildJvm.run(AllReduceRounds.class, "4g", args, Map.of(), dir.resolve("driver.log"));
    }
    Map<String, List<double[]>> rows = new LinkedHashMap<>();
    for (String line : out) {
      if (line.startsWith("ar ")) {
        String[] f = line.split(" ");
        double[] v = new double[4];
        for (int i = 0; i < 4; i++) {
          v[i] = Double.parseDouble(f[3 + i]);
        }
        rows.computeIfAbsent(f[1] + " " + f[2], k -> new ArrayList<>()).add(v);
      }
    }
    StringBuilder md =
        new StringBuilder("### 20. All-reduce between executors (AlexNet-sized)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "A Spark standalone cluster on this machine (`LoopbackCluster`): a master and 3"
                + " workers of 1 core, one executor JVM each (%s heap), the driver in a JVM of its"
                + " own (`AllReduceRounds`); the AlexNet-sized net (%,d weights, %d MB in float),"
                + " tau 1, the median of the measured rounds after one that builds the nets. The"
                + " machine has 2 cores and was shared with other builds: compare the rows with"
                + " each other, not with other sections. Bytes through the driver: the task"
                + " results it received (Spark's task metrics) and the broadcast pieces the"
                + " executors stored in the round (fetched from the driver or from each other, so"
                + " an upper bound). GB/s per executor (all-reduce): 12·(N−1)/N bytes a weight"
                + " sent and as many received (partial sums in double, the result in float) over"
                + " the round's time outside the slowest solver's steps. Load average %s before.%n%n",
            executorMemory,
            ALEXNET_FLOATS,
            ALEXNET_FLOATS * 4 / 1_000_000,
            load));
    md.append(
        "| averaging | workers | rounds | round (ms) | compute (ms) | results to the driver (MB)"
            + " | broadcast pieces stored (MB) | through the driver (MB) | GB/s per executor |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<double[]>> e : rows.entrySet()) {
      String[] k = e.getKey().split(" ");
      int n = Integer.parseInt(k[1]);
      double[] m = medians(e.getValue());
      double overhead = Math.max(1, m[0] - m[1]) / 1000;
      String gbps =
          k[0].equals("allreduce")
              ? String.format(
                  Locale.ROOT, "%.2f", 2 * 12.0 * (n - 1) / n * ALEXNET_FLOATS / overhead / 1e9)
              : "—";
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s |%n",
              k[0],
              n,
              e.getValue().size(),
              m[0],
              m[1],
              m[2] / 1e6,
              m[3] / 1e6,
              (m[2] + m[3]) / 1e6,
              gbps));
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-allreduce", md.toString());
  }

  private static double[] medians(List<double[]> rs) {
    double[] m = new double[rs.get(0).length];
    for (int i = 0; i < m.length; i++) {
      int col = i;
      double[] v = rs.stream().mapToDouble(r -> r[col]).sorted().toArray();
      m[i] = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
    return m;
  }
}
