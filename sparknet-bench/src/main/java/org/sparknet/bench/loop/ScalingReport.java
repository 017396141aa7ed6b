package org.sparknet.bench.loop;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.bench.loop.ScalingSection.Round;
import org.sparknet.bench.loop.ScalingSection.Row;

/**
 * The rows of the scaling benchmark from a driver's output and the JVMs' socket recordings, and the
 * section with {@link CostModel}'s prediction beside each.
 */
final class ScalingReport {
  /**
   * The rate at which one JVM serialises and another deserialises weights, as section 8 measured.
   */
  static final double SERIALISATION_BYTES_PER_SECOND = 0.53e9;

  private ScalingReport() {}

  /** One row per mode of one N: medians over the mode's rounds. */
  static List<Row> rows(List<String> out, Path driver, List<Path> executors) {
    Map<String, List<Round>> byMode = new LinkedHashMap<>();
    Map<String, Double> heap = new LinkedHashMap<>();
    for (String l : out) {
      if (l.startsWith("round ")) {
        Round r = Round.parse(l);
        byMode.computeIfAbsent(r.mode(), k -> new ArrayList<>()).add(r);
      } else if (l.startsWith("heap ")) {
        String[] f = l.split(" ");
        heap.put(f[1], Double.parseDouble(f[3]));
      }
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<String, List<Round>> e : byMode.entrySet()) {
      List<Round> rs = e.getValue();
      List<SocketBytes.Span> spans = rs.stream().map(Round::span).toList();
      SocketBytes.Window[] d = SocketBytes.in(driver, spans);
      double[][] perExecutor = new double[executors.size()][];
      for (int i = 0; i < executors.size(); i++) {
        perExecutor[i] =
            Arrays.stream(SocketBytes.in(executors.get(i), spans))
                .mapToDouble(SocketBytes.Window::total)
                .toArray();
      }
      double[] mean = new double[rs.size()];
      double[] max = new double[rs.size()];
      for (int r = 0; r < rs.size(); r++) {
        for (double[] x : perExecutor) {
          mean[r] += x[r] / perExecutor.length;
          max[r] = Math.max(max[r], x[r]);
        }
      }
      double[] driverBytes = Arrays.stream(d).mapToDouble(SocketBytes.Window::total).toArray();
      long pushes = rs.stream().mapToLong(Round::pushes).sum();
      rows.add(
          new Row(
              e.getKey(),
              rs.get(0).n(),
              rs.size(),
              median(rs.stream().mapToDouble(r -> r.wall() - r.compute()).toArray()),
              median(rs.stream().mapToDouble(Round::compute).toArray()),
              median(driverBytes),
              median(mean),
              median(max),
              median(rs.stream().mapToDouble(r -> r.pushes() * 1000.0 / r.wall()).toArray()),
              pushes == 0 ? Double.NaN : Arrays.stream(driverBytes).sum() / pushes,
              heap.getOrDefault(e.getKey(), Double.NaN)));
    }
    return rows;
  }

  static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    int n = s.length;
    return n == 0 ? Double.NaN : n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /**
   * The model for {@code mode} with o fitted to its smallest N's measured time outside the steps.
   */
  static CostModel model(List<Row> rows, String mode, double bandwidth) {
    Row first = rows.stream().filter(r -> r.mode().equals(mode)).findFirst().orElseThrow();
    double m = ScalingRounds.tinyNetWeights() * (double) Float.BYTES;
    double c = Math.max(first.computeMs(), 1) / 1000 / ScalingRounds.BATCH;
    CostModel zero =
        new CostModel(c, ScalingRounds.BATCH, 0, m, bandwidth, SERIALISATION_BYTES_PER_SECOND);
    double o = Math.max(0, first.outsideMs() / 1000 - network(zero, mode, first.n()));
    return new CostModel(c, ScalingRounds.BATCH, o, m, bandwidth, SERIALISATION_BYTES_PER_SECOND);
  }

  static double network(CostModel cm, String mode, int n) {
    return mode.equals("allreduce") ? cm.ringNetworkSeconds(n) : cm.networkSeconds(n);
  }

  static String markdown(
      List<Row> rows,
      double bandwidth,
      String mem,
      int rounds,
      String before,
      List<String> loads,
      List<String> ran,
      String command) {
    StringBuilder md = new StringBuilder("### 22. How a round's cost grows with the workers\n\n");
    md.append(ScalingText.intro(mem, rounds, bandwidth, before, loads, ran, command));
    md.append(
        "| mode | N | outside the steps (ms) | model (ms) | compute (ms) | driver heap (MB) |"
            + " through the driver (KB) | less Spark's own (KB) | model (KB) |"
            + " per executor, mean / max (KB) | model (KB) | pushes/s | KB per push | model (KB)"
            + " |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    Map<String, CostModel> models = new LinkedHashMap<>();
    for (Row r : rows) {
      CostModel cm = models.computeIfAbsent(r.mode(), k -> model(rows, k, bandwidth));
      boolean ring = r.mode().equals("allreduce");
      boolean async = r.mode().equals("downpour");
      boolean none = async || r.mode().equals(ScalingRounds.SPARK_MODE);
      String outsideModel =
          none ? "—" : f0((cm.overheadSeconds() + network(cm, r.mode(), r.n())) * 1000);
      String driverModel = none ? "—" : kb(ring ? cm.ringDriverBytes() : cm.driverBytes(r.n()));
      String execModel = none ? "—" : kb(ring ? cm.ringExecutorBytes(r.n()) : cm.executorBytes());
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s |%n",
              r.mode(),
              r.n(),
              f0(r.outsideMs()),
              outsideModel,
              f0(r.computeMs()),
              f0(r.heapMb()),
              kb(r.driverBytes()),
              none ? "—" : kb(r.driverBytes() - sparkOwn(rows, r.n())),
              driverModel,
              kb(r.executorMeanBytes()),
              kb(r.executorMaxBytes()),
              execModel,
              async ? f0(r.pushesPerSecond()) : "—",
              async ? kb(r.bytesPerPush()) : "—",
              async ? kb(cm.pushBytes()) : "—"));
    }
    return md.toString();
  }

  /**
   * The driver's bytes in a round of the empty barrier stage at {@code n} workers (mode {@value
   * ScalingRounds#SPARK_MODE}): what Spark itself sends and receives to run N tasks.
   */
  static double sparkOwn(List<Row> rows, int n) {
    return rows.stream()
        .filter(r -> r.mode().equals(ScalingRounds.SPARK_MODE) && r.n() == n)
        .mapToDouble(Row::driverBytes)
        .findFirst()
        .orElse(Double.NaN);
  }

  private static String f0(double v) {
    return Double.isNaN(v) ? "—" : String.format(Locale.ROOT, "%.0f", v);
  }

  static String kb(double bytes) {
    return Double.isNaN(bytes) ? "—" : String.format(Locale.ROOT, "%,.0f", bytes / 1000);
  }
}
