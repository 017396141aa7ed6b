package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.bench.loop.SplitSection.Figures;

/**
 * Section {@code cluster}: the rounds of section 7 on a standalone cluster of 2 executor JVMs on
 * loopback ({@link LoopbackCluster}, driven by {@link ClusterRounds} in a JVM of its own), set
 * beside what the cost model of section 8 predicts for them from the figures measured in local mode
 * in this run, with the loopback's own bandwidth for B; and the AlexNet-sized round's bandwidth
 * (bytes moved over the round's time outside the solver steps), target at least 1 GB/s.
 */
final class ClusterSection {

  /** One (net, tau, compression)'s measured rounds: wall, compute, broadcast, aggregate, sched. */
  private record Key(String net, int tau, String compression) {}

  private final LoopOptions opt;
  private final SplitSection split;

  ClusterSection(BenchRun run, SplitSection split) {
    this.opt = run.opt();
    this.split = split;
  }

  void run() throws Exception {
    Map<String, Figures> local = split.figures();
    String load = Machine.loadAverage();
    Path dir = Files.createDirectories(Path.of("sparknet-bench/target/bench-cluster"));
    String executorMemory = opt.quick() ? "3g" : "4g";
    List<String> out;
    String probes;
    try (LoopbackCluster cluster =
        LoopbackCluster.start(dir.resolve("run-" + System.currentTimeMillis()), WORKERS, "6g")) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  cluster.masterUrl(),
                  opt.quick() ? "quick" : "full",
                  opt.data() == null ? "-" : opt.data().toString()));
      cluster.appSettings(executorMemory).forEach((k, v) -> args.add(k + "=" + v));
      out = ChildJvm.run(ClusterRounds.class, "4g", args, Map.of(), dir.resolve("driver.log"));
      probes = probes(cluster, executorMemory, dir);
    }
    double loopback = ChildJvm.value(out, "loopback");
    double serialisation = WeightComponents.serialisationBytesPerSecond(60_965_224, 3);
    Map<Key, List<double[]>> rounds = parse(out);
    StringBuilder md = new StringBuilder("### 13. On a cluster: executors in their own JVMs\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "A Spark standalone cluster on this machine (`LoopbackCluster`): a master and %d"
                + " workers of 1 core on 127.0.0.1 and 127.0.0.2, one executor JVM each (%s heap),"
                + " the driver in a JVM of its own (`ClusterRounds`), SparkNet's recommended"
                + " settings; the rounds of section 7 (same nets, taus, warm-up and counts). One"
                + " TCP stream over loopback moved %.2f GB/s, the B of the predictions. Predicted:"
                + " section 8's model for W = %d, T = tau·b·c + o + (1 + a(2))·M/B with c and o"
                + " measured in local mode in this run (section 7); and with each transfer also"
                + " serialised and deserialised, + (1 + a(2))·M/S, S = %.2f GB/s measured in this"
                + " JVM (`BulkArrays` through Spark's Kryo, write then read): local mode hands the"
                + " weights over by reference, so its o leaves that out. Load average %s before.%n%n",
            WORKERS,
            executorMemory,
            loopback,
            WORKERS,
            serialisation / 1e9,
            load));
    predictions(md, rounds, local, loopback, serialisation);
    bandwidth(md, rounds, local);
    md.append(probes);
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-cluster", md.toString());
  }

  /** Each measured (net, tau) beside the cost model's prediction, without and with M/S. */
  private static void predictions(
      StringBuilder md,
      Map<Key, List<double[]>> rounds,
      Map<String, Figures> local,
      double loopback,
      double serialisation) {
    md.append(
        "| net | tau | rounds | round (ms) | compute (ms) | broadcast (ms) | aggregate (ms) |"
            + " scheduling (ms) | predicted, section 8 (ms) | measured ÷ predicted | predicted with"
            + " M/S (ms) | measured ÷ predicted |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Key, List<double[]>> e : rounds.entrySet()) {
      Key k = e.getKey();
      if (!k.compression().equals("none")) {
        continue;
      }
      Figures f = local.get(k.net());
      double[] med = medians(e.getValue());
      double predicted = Double.NaN;
      double corrected = Double.NaN;
      if (f != null && f.computeMsPerImage().containsKey(k.tau())) {
        double c = f.computeMsPerImage().get(k.tau()) / 1000;
        double o = f.overheadMs().get(k.tau()) / 1000;
        double bytes = f.weightFloats() * 4.0;
        int b = f.net().batch();
        predicted = new CostModel(c, b, o, bytes, loopback * 1e9).roundSeconds(WORKERS, k.tau());
        corrected =
            new CostModel(c, b, o, bytes, loopback * 1e9, serialisation)
                .roundSeconds(WORKERS, k.tau());
        predicted *= 1000;
        corrected *= 1000;
      }
      double ratio = med[0] / predicted;
      double ratio2 = med[0] / corrected;
      log(
          "cluster %s tau=%d: round %.0f ms, predicted %.0f ms, with M/S %.0f ms",
          k.net(), k.tau(), med[0], predicted, corrected);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f%s | %.0f | %.2f%s |%n",
              k.net(),
              k.tau(),
              e.getValue().size(),
              med[0],
              med[1],
              med[2],
              med[3],
              med[4],
              predicted,
              ratio,
              Math.abs(ratio - 1) > 0.25 ? " (off by > 25 %)" : "",
              corrected,
              ratio2,
              Math.abs(ratio2 - 1) > 0.25 ? " (off by > 25 %)" : ""));
    }
  }

  /** The AlexNet-sized round's bytes over its time outside the solver steps, per compression. */
  private void bandwidth(
      StringBuilder md, Map<Key, List<double[]>> rounds, Map<String, Figures> local) {
    Figures alex = null;
    for (Figures f : local.values()) {
      if (f.net().side() == 227) {
        alex = f;
      }
    }
    if (alex == null) {
      return;
    }
    md.append(
        "\nThe AlexNet-sized round at tau=1 on the cluster: the broadcast of the weights and one"
            + " result per worker (16-bit offsets are half the size) over the round's time outside"
            + " the slowest worker's solver steps.\n\n"
            + "| results | bytes a round (MB) | round (ms) | overhead (ms) | GB/s | target ≥ 1 GB/s |\n"
            + "|---|---:|---:|---:|---:|---|\n");
    for (String c : List.of("none", "fp16", "bf16")) {
      List<double[]> rs = rounds.get(new Key(alex.net().name(), 1, c));
      if (rs == null) {
        continue;
      }
      double[] med = medians(rs);
      double over = med[2] + med[3] + med[4];
      double bytes = alex.weightFloats() * 4.0 * (1 + WORKERS * (c.equals("none") ? 1 : 0.5));
      double gbps = bytes / over / 1e6;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %.0f | **%.2f** | %s |%n",
              c.equals("none") ? "32-bit weights" : c + " offsets",
              bytes / 1e6,
              med[0],
              over,
              gbps,
              c.equals("none") ? (gbps >= 1 ? "met" : "**not met**") : ""));
    }
  }

  /** Section 11's Spark probes, against this cluster: one application each. */
  private String probes(LoopbackCluster cluster, String executorMemory, Path dir) {
    int floats = opt.quick() ? 8_000_000 : 60_965_224;
    StringBuilder md = new StringBuilder();
    md.append(
        String.format(
            Locale.ROOT,
            "%nSpark's part on the cluster (`ResultPathProbe`, one application per line, as in"
                + " section 12): the driver broadcasts %.0f MB, a job of 2 tasks, one per executor,"
                + " returns a copy each.%n%n"
                + "| configuration | broadcast (ms) | job returning 2 × %.0f MB (ms) |%n"
                + "|---|---:|---:|%n",
            floats * 4 / 1e6,
            floats * 4 / 1e6));
    md.append(
        WeightPathSection.probeRows(
            cluster.masterUrl(),
            floats,
            opt.quick() ? 1 : opt.repeats(),
            cluster.appSettings(executorMemory),
            dir));
    return md.toString();
  }

  private static Map<Key, List<double[]>> parse(List<String> lines) {
    Map<Key, List<double[]>> out = new LinkedHashMap<>();
    for (String l : lines) {
      String[] f = l.trim().split("\\s+");
      if (f.length == 9 && f[0].equals("round")) {
        Key k = new Key(f[1].replace('_', ' '), Integer.parseInt(f[2]), f[3]);
        double[] v = new double[5];
        for (int i = 0; i < 5; i++) {
          v[i] = Double.parseDouble(f[4 + i]);
        }
        out.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
      }
    }
    return out;
  }

  /** Per column, the median over rounds. */
  private static double[] medians(List<double[]> rs) {
    double[] med = new double[rs.get(0).length];
    for (int i = 0; i < med.length; i++) {
      List<Double> col = new ArrayList<>();
      for (double[] r : rs) {
        col.add(r[i]);
      }
      med[i] = Spread.of(col).median();
    }
    return med;
  }
}
