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
 *
 * <p>The corrected prediction ({@link CostModel#clusterRoundSeconds}) takes the round's fixed cost
 * from the cluster itself: before the nets, on the same executors and in the same driver JVM, a
 * Spark job shaped like a round of each net's M bytes ({@link ResultPathProbe#time}: broadcast of
 * M, one task per executor returning M, the driver summing the two, the broadcast destroyed). That
 * probe was chosen over SparkNet rounds of a net with minimal compute because it isolates what
 * local mode's o leaves out (cross-JVM task launch, serialisation at both ends, the results'
 * transfer) at exactly the M of each net, with no solver, no Caffe net to build and no data
 * partition in it, so nothing of the compute tau·b·c is counted twice. What it leaves out, and the
 * corrected prediction with it, is the executor copying the weights into and out of its Caffe net
 * and the trainer's own packing of a {@code WeightCollection} (layer names and shapes around the
 * floats), so where it still falls short the rest of the gap lies there or in the compute.
 */
final class ClusterSection {

  /** One (net, tau, compression)'s measured rounds: wall, compute, broadcast, aggregate, sched. */
  private record Key(String net, int tau, String compression) {}

  /** The mark of a ratio more than {@link CostModel#TOLERANCE} away from 1. */
  private static final String OFF = " (off by > 25 %)";

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
                  opt.data() == null ? "-" : opt.data().toString(),
                  probeSpec(local)));
      cluster.appSettings(executorMemory).forEach((k, v) -> args.add(k + "=" + v));
      out = ChildJvm.run(ClusterRounds.class, "4g", args, Map.of(), dir.resolve("driver.log"));
      probes = probes(cluster, executorMemory, dir);
    }
    double loopback = ChildJvm.value(out, "loopback");
    double serialisation = WeightComponents.serialisationBytesPerSecond(60_965_224, 3);
    Map<Key, List<double[]>> rounds = parse(out);
    Map<String, Double> clusterOverhead = parseProbes(out);
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
                + " weights over by reference, so its o leaves that out. Corrected: T = tau·b·c +"
                + " o_cluster(M), the same c, and in place of o and the transfers the cluster's own"
                + " per-round fixed cost for the net's M, measured on this cluster in this run"
                + " before the nets by a Spark job shaped like a round with no solver in it"
                + " (`ResultPathProbe`: broadcast of M, one task per executor returning M, the"
                + " driver summing them; median after a warm-up): %s. Load average %s before.%n%n",
            WORKERS,
            executorMemory,
            loopback,
            WORKERS,
            serialisation / 1e9,
            probeText(clusterOverhead),
            load));
    predictions(md, rounds, local, new Rates(loopback, serialisation, clusterOverhead));
    bandwidth(md, rounds, local);
    md.append(probes);
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-cluster", md.toString());
  }

  /** What the predictions take from this run besides section 7: B, S and o_cluster per net. */
  private record Rates(
      double loopbackGBps, double serialisationBytesPerSecond, Map<String, Double> overheadMs) {}

  /**
   * Each measured (net, tau) beside the cost model's prediction: section 8's, with M/S, and
   * corrected with the cluster's own per-round cost.
   */
  private static void predictions(
      StringBuilder md, Map<Key, List<double[]>> rounds, Map<String, Figures> local, Rates r) {
    md.append(
        "| net | tau | rounds | round (ms) | compute (ms) | broadcast (ms) | aggregate (ms) |"
            + " scheduling (ms) | predicted, section 8 (ms) | measured ÷ predicted | predicted with"
            + " M/S (ms) | measured ÷ predicted | predicted, corrected (ms) | measured ÷ corrected"
            + " |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<Key, List<double[]>> e : rounds.entrySet()) {
      Key k = e.getKey();
      if (!k.compression().equals("none")) {
        continue;
      }
      Figures f = local.get(k.net());
      double[] med = medians(e.getValue());
      double[] predicted = {Double.NaN, Double.NaN, Double.NaN};
      if (f != null && f.computeMsPerImage().containsKey(k.tau())) {
        double c = f.computeMsPerImage().get(k.tau()) / 1000;
        double o = f.overheadMs().get(k.tau()) / 1000;
        double bytes = f.weightFloats() * 4.0;
        int b = f.net().batch();
        double bw = r.loopbackGBps() * 1e9;
        CostModel m = new CostModel(c, b, o, bytes, bw);
        predicted[0] = m.roundSeconds(WORKERS, k.tau()) * 1000;
        predicted[1] =
            new CostModel(c, b, o, bytes, bw, r.serialisationBytesPerSecond())
                    .roundSeconds(WORKERS, k.tau())
                * 1000;
        Double oc = r.overheadMs().get(k.net());
        if (oc != null) {
          predicted[2] = m.clusterRoundSeconds(k.tau(), oc / 1000) * 1000;
        }
      }
      log(
          "cluster %s tau=%d: round %.0f ms, predicted %.0f ms, with M/S %.0f ms, corrected %.0f ms",
          k.net(), k.tau(), med[0], predicted[0], predicted[1], predicted[2]);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f |",
              k.net(),
              k.tau(),
              e.getValue().size(),
              med[0],
              med[1],
              med[2],
              med[3],
              med[4]));
      for (double p : predicted) {
        md.append(String.format(Locale.ROOT, " %.0f | %s |", p, ratioCell(med[0], p)));
      }
      md.append('\n');
    }
  }

  /** measured ÷ predicted to two decimals, marked when it is off by more than 25 %. */
  static String ratioCell(double measured, double predicted) {
    return String.format(Locale.ROOT, "%.2f", measured / predicted)
        + (CostModel.offBy(measured, predicted) ? OFF : "");
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

  /** The probes ClusterRounds runs: each net's weight floats, as {@code NET:FLOATS,...}. */
  private static String probeSpec(Map<String, Figures> local) {
    List<String> out = new ArrayList<>();
    for (Figures f : local.values()) {
      out.add(f.net().name().replace(' ', '_') + ":" + f.weightFloats());
    }
    return out.isEmpty() ? "-" : String.join(",", out);
  }

  /** Per net, the probe's round-shaped time in ms ({@code probe NET FLOATS BC JOB ROUND}). */
  private static Map<String, Double> parseProbes(List<String> lines) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String l : lines) {
      String[] f = l.trim().split("\\s+");
      if (f.length == 6 && f[0].equals("probe")) {
        out.put(f[1].replace('_', ' '), Double.parseDouble(f[5]));
      }
    }
    return out;
  }

  /** The probes' o_cluster(M) in words, for the text above the table. */
  private static String probeText(Map<String, Double> overheadMs) {
    List<String> out = new ArrayList<>();
    overheadMs.forEach((net, ms) -> out.add(String.format(Locale.ROOT, "%s %.0f ms", net, ms)));
    return out.isEmpty() ? "no probe ran" : String.join(", ", out);
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
