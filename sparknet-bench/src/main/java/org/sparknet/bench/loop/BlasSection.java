package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.sparknet.bench.loop.BlasVariants.Variant;

/**
 * Section 16: Caffe's training step with each BLAS that can sit behind the same presets ({@link
 * BlasVariants}), side by side. A BLAS is loaded once per process, so every variant runs in a JVM
 * of its own ({@link BlasChild}); the variants take turns within each repetition, so a change in
 * the machine's load falls on all of them, and each is compared with today's default in the same
 * repetition.
 */
final class BlasSection {
  /** The rule for a new default: at least this much faster (and every test passing). */
  static final double SWITCH_RATIO = 1.10;

  private final BenchRun run;
  private final Map<String, List<Double>> lenet = new LinkedHashMap<>();
  private final Map<String, List<Double>> cifar = new LinkedHashMap<>();
  private final Map<String, List<Double>> sgemm = new LinkedHashMap<>();
  private final Map<String, String> loaded = new LinkedHashMap<>();
  private final Map<String, String> failed = new LinkedHashMap<>();

  BlasSection(BenchRun run) {
    this.run = run;
  }

  void run() throws IOException {
    String load = Machine.loadAverage();
    boolean quick = run.opt().quick();
    int repeats = quick ? 1 : run.opt().repeats();
    List<Variant> variants = BlasVariants.all(quick);
    Path logs = Files.createDirectories(BlasVariants.DIR.resolve("logs"));
    for (int r = 1; r <= repeats; r++) {
      for (Variant v : variants) {
        if (v.unavailable() != null || failed.containsKey(v.key())) {
          continue;
        }
        Path logFile = logs.resolve(v.key() + "-" + r + ".log");
        List<String> args =
            List.of(
                quick ? "quick" : "full", run.opt().data() == null ? "-" : "" + run.opt().data());
        try {
          List<String> out =
              ChildJvm.run(
                  BlasChild.class, "2g", v.jvmOptions(), v.classPath(), args, v.env(), logFile);
          lenet.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(ChildJvm.value(out, "lenet"));
          cifar.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(ChildJvm.value(out, "cifar"));
          sgemm.computeIfAbsent(v.key(), k -> new ArrayList<>()).add(ChildJvm.value(out, "sgemm"));
          loaded.putIfAbsent(v.key(), whatLoaded(out, Files.readAllLines(logFile)));
        } catch (IllegalStateException e) {
          failed.put(v.key(), e.getMessage() + lastLine(logFile));
        }
        log("blas rep %d %s: %s", r, v.key(), failed.getOrDefault(v.key(), "ok"));
      }
    }
    report(variants, load, repeats, quick);
  }

  /**
   * What the child really called: for OpenBLAS the core its "Core: NAME" lines name (and any "Core
   * not found" warning) and the jar libopenblas.so.0 came from; for MKL the marker symbols.
   */
  static String whatLoaded(List<String> out, List<String> stderr) {
    Set<String> notes = new LinkedHashSet<>();
    for (String l : stderr) {
      String t = l.trim();
      if (t.startsWith("Core: ")) {
        notes.add("core " + t.substring("Core: ".length()));
      } else if (t.startsWith("Core not found")) {
        notes.add("OpenBLAS warned \"" + t + "\"");
      }
    }
    String from = "?";
    String symbols = "";
    for (String l : out) {
      if (l.startsWith("blas ")) {
        for (String lib : l.substring(5).split(" ")) {
          if (lib.endsWith("/libopenblas.so.0")) {
            from = lib.substring(0, lib.length() - "/libopenblas.so.0".length());
          }
          if (lib.contains("libmkl_rt")) {
            notes.add("libmkl_rt mapped");
          }
        }
      } else if (l.startsWith("symbols ")) {
        symbols = l.substring(8);
      }
    }
    return String.join("; ", notes)
        + (notes.isEmpty() ? "" : "; ")
        + "libopenblas.so.0 from "
        + from
        + "; "
        + symbols;
  }

  private static String lastLine(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          return ": " + lines.get(i).trim();
        }
      }
    } catch (IOException e) {
      return "";
    }
    return "";
  }

  private Spread ratio(Map<String, List<Double>> of, String key) {
    List<Double> base = of.get("default");
    List<Double> v = of.get(key);
    if (base == null || v == null || base.size() != v.size()) {
      return null;
    }
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      r.add(v.get(i) / base.get(i));
    }
    return Spread.of(r);
  }

  private void report(List<Variant> variants, String load, int repeats, boolean quick) {
    StringBuilder md = new StringBuilder("### 16. The BLAS behind Caffe\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Caffe's training step with each BLAS that can sit behind the same presets (caffe"
                + " 1.0-1.5.8, whose libcaffe links libopenblas.so.0): the plain JavaCPP solver"
                + " loop (`PlainSolverLoop`, as in section 6) on LeNet (batch 64, %d steps) and"
                + " CIFAR-10 quick (batch 100, %d steps, Fashion-MNIST resized to 3×32×32), 1 BLAS"
                + " thread (OPENBLAS_NUM_THREADS=1, MKL_NUM_THREADS=1), after a warm-up. Each"
                + " variant in a JVM of its own (`BlasChild`), the variants in turn within each of"
                + " %d repetitions: median (min–max) images/s, and the ratio to today's default"
                + " in the same repetition; then one %d³ sgemm (row-major, no transposes) through"
                + " the OpenBLAS presets' cblas_sgemm, the kernel's own speed. \"Loaded\" is what the child reported, not what was"
                + " asked for: OpenBLAS's own \"Core:\" line (OPENBLAS_VERBOSE=2), the jar"
                + " libopenblas.so.0 was mapped from (/proc/self/maps), and whether the process"
                + " finds OpenBLAS's or MKL's own symbols. Load average %s before.%n%n",
            BlasChild.lenetSteps(quick),
            BlasChild.cifarSteps(quick),
            repeats,
            BlasChild.SGEMM_SIDE,
            load));
    md.append("| BLAS | loaded | LeNet images/s | × default | CIFAR-10 quick images/s")
        .append(" | × default | sgemm ")
        .append(BlasChild.SGEMM_SIDE)
        .append("³, GFLOP/s | ≥ ")
        .append(String.format(Locale.ROOT, "%.2f", SWITCH_RATIO))
        .append(" × on both |\n|---|---|---:|---:|---:|---:|---:|---|\n");
    String best = null;
    double bestMin = 0;
    for (Variant v : variants) {
      String why = v.unavailable() != null ? v.unavailable() : failed.get(v.key());
      if (why != null || !lenet.containsKey(v.key())) {
        md.append("| ").append(v.name()).append(" | ").append(why == null ? "—" : why);
        md.append(" | — | — | — | — | — | — |\n");
        continue;
      }
      Spread l = ratio(lenet, v.key());
      Spread c = ratio(cifar, v.key());
      double worse = l == null || c == null ? 0 : Math.min(l.median(), c.median());
      if (!v.isDefault() && worse > bestMin) {
        best = v.name();
        bestMin = worse;
      }
      md.append("| ").append(v.name()).append(" | ").append(loaded.get(v.key())).append(" | ");
      md.append(Spread.of(lenet.get(v.key())).format("%,.0f")).append(" | ");
      md.append(l == null ? "—" : l.format("%.2f")).append(" | ");
      md.append(Spread.of(cifar.get(v.key())).format("%,.0f")).append(" | ");
      md.append(c == null ? "—" : c.format("%.2f")).append(" | ");
      md.append(Spread.of(sgemm.get(v.key())).format("%.0f")).append(" | ");
      md.append(v.isDefault() ? "" : worse >= SWITCH_RATIO ? "yes" : "no").append(" |\n");
    }
    conclusion(md, best, bestMin);
    run.write("loop-blas", md);
  }

  private static void conclusion(StringBuilder md, String best, double bestMin) {
    md.append(
        String.format(
            Locale.ROOT,
            "%nThe issue's rule: a BLAS becomes the default only if it is at least %.0f %% faster"
                + " (here: on both nets, median ratio) and every test passes with it. Fastest"
                + " other than the default on its slower net: %s (× %.2f). Speed part: %s. The"
                + " test part is not checked by this section.%n",
            (SWITCH_RATIO - 1) * 100,
            best == null ? "none measured" : best,
            bestMin,
            BenchRun.metOrNot(bestMin >= SWITCH_RATIO)));
  }
}
