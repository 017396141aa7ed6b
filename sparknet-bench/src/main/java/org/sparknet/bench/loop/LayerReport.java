package org.sparknet.bench.loop;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.bench.loop.LayerTimeSection.Profile;

/**
 * The Markdown of section 5b from the measured {@link Profile}s.
 *
 * @param reps repetitions of every timing (the shortest is reported)
 * @param windowNanos the window in which the fastest single sgemm call is taken
 * @param load the load average before the section
 */
record LayerReport(int reps, long windowNanos, String load) {
  private static final double LENET_TARGET = 0.40;
  private static final double CIFAR_TARGET = 0.50;
  private static final List<String> GEMM_TYPES = List.of("Convolution", "InnerProduct");

  /** The section: method, a per-layer table per net (first profile), batch sizes, verdict. */
  StringBuilder markdown(List<Profile> lenet, List<Profile> cifar) {
    StringBuilder md = new StringBuilder("### 5b. Per-layer time: where a training step goes\n\n");
    md.append(
        f(
            "One `PlainCaffeSolver` per net and batch size (the solver and net text CaffeNet"
                + " builds; no SparkNet code in the loop), on 1 BLAS thread, its Input blobs fed"
                + " real Fashion-MNIST batches (CIFAR-10 quick: resized to 3×32×32 as in section"
                + " 5), a different one each pass. Per layer as Caffe's `caffe time` does it"
                + " (tools/caffe.cpp): `layers[i]->Forward(bottom_vecs[i], top_vecs[i])` in order,"
                + " then `Backward(top_vecs[i], bottom_need_backward[i], bottom_vecs[i])` in"
                + " reverse (skipping the layers `Net::Backward` skips); then the solver's whole"
                + " `Step(1)` on the same net, whose time beyond the layers' sum is"
                + " `ClearParamDiffs` and the SGD update (`ApplyUpdate`). Every time is the"
                + " shortest of %d repetitions × N passes (N in the tables; about 3 s a"
                + " repetition) and every sgemm rate that of the fastest single call in %d ms: on"
                + " a shared machine a pass another process interrupts is longer by the"
                + " interruption, which says nothing about the layer (on a quiet one shortest and"
                + " median differ by a few %%; the shortest step is at least the sum of the"
                + " shortest layers, so the rest of the step reads a little high). GEMM columns:"
                + " the layer's products as in section 5 (`GemmShapes`, 2MNK × calls per step)"
                + " and the time they take in `cblas_sgemm` alone at the 1-thread rate measured"
                + " here for each shape; the layer's achieved"
                + " GFLOP/s is its GEMM FLOPs over its forward + backward time. im2col + col2im:"
                + " Caffe's own `im2col_cpu`/`col2im_cpu` on the layer's bottom blob, as often as"
                + " a step calls them (two im2col per image, forward and weight gradient, and a"
                + " col2im per image when the layer propagates down), on scratch buffers; they"
                + " are part of the layer's time. OpenBLAS kernel: %s. Load average %s"
                + " before.%n%n",
            reps, windowNanos / 1_000_000, kernel(), load));
    for (List<Profile> net : List.of(lenet, cifar)) {
      layerTable(md, net.get(0));
      shares(md, net.get(0));
    }
    batchTable(md, lenet, cifar);
    verdict(md, lenet, cifar);
    return md;
  }

  /**
   * The OpenBLAS kernel as the environment chose it. The presets do not map openblas_get_corename,
   * and OpenBLAS picks its kernel from CPUID when it loads: on a virtual machine whose CPUID hides
   * the model it can fall back to a generic one (Prescott) at a fraction of the AVX2/AVX-512 rate,
   * which lowers the peak and so raises every share of it below.
   */
  private static String kernel() {
    String core = System.getenv("OPENBLAS_CORETYPE");
    return core == null || core.isBlank()
        ? "chosen by OpenBLAS from CPUID (OPENBLAS_CORETYPE unset; OPENBLAS_VERBOSE=2 prints it)"
        : "OPENBLAS_CORETYPE=" + core;
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  // Long: one table row per layer plus three summary rows, written in one place.
  private static void layerTable(StringBuilder md, Profile p) {
    md.append(
        f(
            "**%s**, batch %d, N = %d passes: `Step(1)` %.2f ms (%,.0f images/s).%n%n",
            p.net().name(), p.net().batch(), p.iterations(), 1e3 * p.step(), p.imagesPerSecond()));
    md.append(
        "| layer | type | forward ms | backward ms | % of step | GEMM MFLOP / step |"
            + " GEMM-only ms at 1-thread sgemm rate | im2col + col2im ms | achieved GFLOP/s |"
            + " GEMM-only / layer time |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    double im2col = 0;
    for (int i = 0; i < p.layers().size(); i++) {
      double t = p.forward()[i] + p.backward()[i];
      LayerGemms g = p.gemms().get(p.layers().get(i).name());
      im2col += p.im2col()[i];
      md.append(
          f(
              "| %s | %s | %.3f | %.3f | %.1f %% | %s | %s | %s | %s | %s |%n",
              p.layers().get(i).name(),
              p.layers().get(i).type(),
              1e3 * p.forward()[i],
              1e3 * p.backward()[i],
              100 * t / p.step(),
              g == null ? "—" : f("%.1f", g.flopsPerStep() / 1e6),
              g == null ? "—" : f("%.3f", 1e3 * g.seconds()),
              p.im2col()[i] > 0 ? f("%.3f", 1e3 * p.im2col()[i]) : "—",
              g == null ? "—" : f("%.1f", g.flopsPerStep() / t / 1e9),
              g == null ? "—" : f("%.0f %%", 100 * g.seconds() / t)));
    }
    double fwd = sum(p.forward());
    double bwd = sum(p.backward());
    double sum = p.layerSum();
    md.append(
        f(
            "| **sum of layers** | | %.3f | %.3f | %.1f %% | %.1f | %.3f | %.3f | %.1f | %.0f %% |%n",
            1e3 * fwd,
            1e3 * bwd,
            100 * sum / p.step(),
            p.gemmFlops() / 1e6,
            1e3 * p.gemmSeconds(),
            1e3 * im2col,
            p.gemmFlops() / sum / 1e9,
            100 * p.gemmSeconds() / sum));
    md.append(
        f(
            "| **`Step(1)`** | | | | 100 %% | %.1f | %.3f | | %.1f | %.0f %% |%n",
            p.gemmFlops() / 1e6,
            1e3 * p.gemmSeconds(),
            p.gemmFlops() / p.step() / 1e9,
            100 * p.gemmSeconds() / p.step()));
    md.append(
        f(
            "| rest of the step: `ClearParamDiffs`, SGD update | | | | %.1f %% | | | | | |%n%n",
            100 * (p.step() - sum) / p.step()));
  }

  /** Where the step goes, as shares of it: GEMMs at peak, their layers' rest, others, update. */
  private static void shares(StringBuilder md, Profile p) {
    double gemmLayers = 0;
    Map<String, Double> others = new LinkedHashMap<>();
    for (int i = 0; i < p.layers().size(); i++) {
      String type = p.layers().get(i).type();
      double t = p.forward()[i] + p.backward()[i];
      if (GEMM_TYPES.contains(type)) {
        gemmLayers += t;
      } else {
        others.merge(type, t, Double::sum);
      }
    }
    double im2col = sum(p.im2col());
    double step = p.step();
    StringBuilder rest = new StringBuilder();
    others.forEach(
        (type, t) -> {
          if (t / step >= 0.0005) {
            rest.append(rest.length() == 0 ? "" : ", ")
                .append(f("%s %.1f %%", type, 100 * t / step));
          }
        });
    md.append(
        f(
            "Where %s's step goes: its GEMMs at the standalone 1-thread sgemm rate %.1f %%; the"
                + " rest of the convolution and inner-product layers %.1f %% (im2col + col2im"
                + " %.1f %%; the bias products, the GEMMs' shortfall from their standalone rate"
                + " and the per-image loop %.1f %%); the other layers %s; `ClearParamDiffs` and"
                + " the SGD update %.1f %%.%n%n",
            p.net().name(),
            100 * p.gemmSeconds() / step,
            100 * (gemmLayers - p.gemmSeconds()) / step,
            100 * im2col / step,
            100 * (gemmLayers - p.gemmSeconds() - im2col) / step,
            rest,
            100 * (step - p.layerSum()) / step));
  }

  private static void batchTable(StringBuilder md, List<Profile> lenet, List<Profile> cifar) {
    md.append(
        "Batch size (the same measurement per batch; the solver and learning rate unchanged, so"
            + " this is speed only, not a recipe): time per image of each kind of layer, and the"
            + " step's GEMM FLOP rate against the 1-thread peak of that batch's shapes.\n\n");
    md.append(
        "| net | batch | `Step(1)` images/s | µs / image: convolutions | inner products | other"
            + " layers | ClearParamDiffs + update | step's GEMM GFLOP/s | 1-thread peak, these"
            + " shapes | of 1-thread peak |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (List<Profile> net : List.of(lenet, cifar)) {
      for (Profile p : net) {
        double perImage = 1e6 / p.net().batch();
        double conv = p.seconds("Convolution");
        double ip = p.seconds("InnerProduct");
        double rate = p.gemmFlops() / p.step() / 1e9;
        md.append(
            f(
                "| %s | %d | %,.0f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f %% |%n",
                p.net().name(),
                p.net().batch(),
                p.imagesPerSecond(),
                perImage * conv,
                perImage * ip,
                perImage * (p.layerSum() - conv - ip),
                perImage * (p.step() - p.layerSum()),
                rate,
                p.peak(),
                100 * rate / p.peak()));
      }
    }
    md.append('\n');
    for (List<Profile> net : List.of(lenet, cifar)) {
      Profile a = net.get(0);
      Profile b = net.get(net.size() - 1);
      if (a == b) {
        continue;
      }
      md.append(
          f(
              "%s from batch %d to %d: the convolutions' time per image %+.0f %%, the inner"
                  + " products' %+.0f %%, the step's %+.0f %%.%n",
              a.net().name(),
              a.net().batch(),
              b.net().batch(),
              change(a, b, a.seconds("Convolution"), b.seconds("Convolution")),
              change(a, b, a.seconds("InnerProduct"), b.seconds("InnerProduct")),
              change(a, b, a.step(), b.step())));
    }
    md.append(
        "\nCaffe 1.0's CPU convolution runs im2col and one GEMM per image (M = output channels,"
            + " N = output pixels, K = input channels × kernel area), whatever the batch: a"
            + " larger batch makes only the inner products' GEMMs larger (M = batch).\n\n");
  }

  /** Per-image change from profile {@code a} to {@code b}, in percent. */
  private static double change(Profile a, Profile b, double secondsA, double secondsB) {
    double perA = secondsA / a.net().batch();
    double perB = secondsB / b.net().batch();
    return 100 * (perB / perA - 1);
  }

  private static void verdict(StringBuilder md, List<Profile> lenet, List<Profile> cifar) {
    md.append(
        "Within reach of Caffe 1.0's CPU layers? SparkNet's 2 workers × 1 BLAS thread do at most"
            + " twice what one plain solver step does on one thread (they share the memory bus,"
            + " and a round adds its overhead), so its share of twice the 1-thread peak is at"
            + " most the plain step's share of the 1-thread peak below. The target is within reach"
            + " only if that ceiling reaches it; section 5 has what SparkNet reaches. The shares"
            + " are of the peak of the OpenBLAS kernel named above: a generic kernel (OpenBLAS"
            + " falls back to Prescott on a virtual machine whose CPUID hides the model) has a"
            + " fraction of an AVX2 or AVX-512 kernel's peak and makes every share read high;"
            + " compare the peak with section 5's.\n\n");
    md.append(
        "| net | target, of 2 × 1-thread peak | plain `Step(1)`, of 1-thread peak (best batch) |"
            + " the layers alone (no update), of 1-thread peak | that batch's `Step(1)` now →"
            + " at the target (ms, same GEMMs) | within reach |\n"
            + "|---|---:|---:|---:|---:|---|\n");
    verdictRow(md, lenet, LENET_TARGET);
    verdictRow(md, cifar, CIFAR_TARGET);
  }

  private static void verdictRow(StringBuilder md, List<Profile> net, double target) {
    Profile best = net.get(0);
    for (Profile p : net) {
      if (p.gemmFlops() / p.step() / p.peak() > best.gemmFlops() / best.step() / best.peak()) {
        best = p;
      }
    }
    double step = best.gemmFlops() / best.step() / 1e9 / best.peak();
    double layers = best.gemmFlops() / best.layerSum() / 1e9 / best.peak();
    md.append(
        f(
            "| %s | %.0f %% | %.0f %% (batch %d) | %.0f %% | %.1f → %.1f | %s |%n",
            best.net().name(),
            100 * target,
            100 * step,
            best.net().batch(),
            100 * layers,
            1e3 * best.step(),
            1e3 * best.gemmFlops() / 1e9 / best.peak() / target,
            BenchRun.metOrNot(step >= target)));
  }

  private static double sum(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return s;
  }
}
