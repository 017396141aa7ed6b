package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.bench.loop.BenchNets.BenchNet;
import org.sparknet.bench.loop.GemmShapes.Gemm;

/**
 * Section 5: the sgemm peak on the GEMM shapes of a training step, with 1 thread and all cores,
 * against the GEMM FLOP rate SparkNet achieves.
 */
final class RooflineSection {
  private final BenchRun run;
  private final int cores = Machine.processors();
  private final long minNanos;
  private final int reps;

  RooflineSection(BenchRun run) {
    this.run = run;
    this.minNanos = run.opt().quick() ? 5_000_000L : 100_000_000L;
    this.reps = run.opt().quick() ? 1 : run.opt().repeats();
  }

  /** The step's GEMM FLOPs per image, and the rates the GEMMs alone reach. */
  private record Peak(double flops, double oneThread, double allCores) {}

  void run() {
    String load = Machine.loadAverage();
    int before = Sgemm.threads();
    int reported = Sgemm.setThreads(cores);
    Sgemm.setThreads(1);
    double reach = Sgemm.threadsReachCaffe(cores);
    log(
        "roofline: OpenBLAS threads %d at start, %d after setting %d; Caffe's gemm at %.2fx its"
            + " 1-thread speed with %d threads",
        before, reported, cores, reach, cores);
    StringBuilder md =
        new StringBuilder("### 5. Roofline: sgemm peak and SparkNet's FLOP rate\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "OpenBLAS `cblas_sgemm` (openblas presets, row-major, Caffe's transposes) on the GEMM"
                + " shapes that Caffe's im2col convolutions and inner products run for one training"
                + " step (M×N×K as in `GemmShapes`: conv forward M = out channels / group, N = out"
                + " h × w, K = in channels / group × kh × kw, once per image and group; backward"
                + " weights and data the transposed products; inner product M = batch; no backward"
                + " data for a layer fed by the input). GFLOP/s with 1 thread and with %d (all"
                + " cores), each the median of %d timings of at least %d ms. FLOPs are GEMM FLOPs"
                + " only (2MNK; pooling, ReLU, LRN, softmax and biases not counted). The thread"
                + " count is set through the presets' `openblas_set_num_threads`, which Caffe's"
                + " libopenblas shares: get_num_threads reported %d after setting %d (%d at"
                + " start), and Caffe's own `caffe_cpu_gemm` (512³) ran at %.2f× its 1-thread speed"
                + " with %d threads (about that many on idle cores; below 1 when another process"
                + " holds a core, as OpenBLAS threads wait for each other). Load average %s"
                + " before.%n%n",
            cores,
            reps,
            minNanos / 1_000_000,
            reported,
            cores,
            before,
            reach,
            cores,
            load));
    StringBuilder summary = new StringBuilder();
    summary.append(
        String.format(
            Locale.ROOT,
            "| net | train GFLOP / image | sgemm peak, 1 thread (GFLOP/s) | %d threads |"
                + " SparkNet images/s | SparkNet GFLOP/s | of %d × 1-thread peak | of %d-thread"
                + " peak | target ≥ 50 %% |%n|---|---:|---:|---:|---:|---:|---:|---:|---|%n",
            cores,
            cores,
            cores));
    for (BenchNet net : List.of(BenchNets.lenet(SEED, LR), BenchNets.cifarQuick(SEED))) {
      Peak peak = gemmTable(net, md);
      summary.append(sparkNetRow(net, peak));
    }
    md.append(
        "SparkNet's achieved rate: GEMM FLOPs per image × images/s of whole rounds (broadcast,"
            + " tasks and averaging included) of SparkNet on `local[2]`, 2 partitions, 1 BLAS"
            + " thread each, measured in this run after a warm-up round; CIFAR-10 quick on"
            + " Fashion-MNIST images resized to 32×32 (nearest neighbour) and replicated to 3"
            + " channels (no CIFAR-10 here; the speed does not depend on the pixels), 6,000"
            + " images a partition. The target compares with the cores' summed 1-thread peak,"
            + " the work two 1-thread workers could do.\n\n");
    md.append(summary);
    run.write("loop-roofline", md);
  }

  /** Times every GEMM of one step of {@code net} and appends its table to {@code md}. */
  private Peak gemmTable(BenchNet net, StringBuilder md) {
    md.append("**").append(net.name()).append("**, batch ").append(net.batch()).append(":\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "| layer | pass | M×N×K | calls / step | MFLOP / image | GFLOP/s 1 thread |"
                + " GFLOP/s %d threads |%n|---|---|---:|---:|---:|---:|---:|%n",
            cores));
    double time1 = 0;
    double timeN = 0;
    double flops = 0;
    for (Gemm g : GemmShapes.of(net.definition())) {
      List<Double> one = new ArrayList<>();
      List<Double> all = new ArrayList<>();
      for (int r = 0; r < reps; r++) {
        Sgemm.setThreads(1);
        one.add(Sgemm.gflops(g.transA(), g.transB(), g.m(), g.n(), g.k(), minNanos));
        Sgemm.setThreads(cores);
        all.add(Sgemm.gflops(g.transA(), g.transB(), g.m(), g.n(), g.k(), minNanos));
      }
      Sgemm.setThreads(1);
      double r1 = Spread.of(one).median();
      double rn = Spread.of(all).median();
      double f = g.flopsPerImage();
      flops += f;
      time1 += f / r1;
      timeN += f / rn;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %d | %.2f | %.1f | %.1f |%n",
              g.layer(),
              g.pass(),
              g.shape(),
              g.callsPerStep(),
              f / 1e6,
              r1,
              rn));
    }
    // GFLOP/s: the GEMMs alone at their measured rates
    Peak peak = new Peak(flops, flops / time1, flops / timeN);
    md.append(
        String.format(
            Locale.ROOT,
            "%nShape-weighted peak (the step's GEMM FLOPs over the time the GEMMs take at these"
                + " rates): %.1f GFLOP/s on 1 thread, %.1f on %d.%n%n",
            peak.oneThread(),
            peak.allCores(),
            cores));
    return peak;
  }

  /** SparkNet on all cores (2 workers x 1 BLAS thread) against the peak: a summary row. */
  private String sparkNetRow(BenchNet net, Peak peak) {
    int tau = run.opt().quick() ? 5 : net.batch() >= 100 ? 20 : 50;
    int rounds = run.opt().quick() ? 1 : 3;
    JavaRDD<Example> data =
        net.channels() == 1
            ? run.trainRdd()
            : BenchNets.resized(run.trainRdd(), 6000, net.channels(), net.side());
    double imgs;
    try (SparkNetTrainer t = run.trainer(net.definition(), tau, 2)) {
      t.setTrainingData(data);
      t.trainRound();
      imgs = BenchRun.imagesPerSecond(t, rounds);
    }
    double achieved = peak.flops() * imgs / 1e9;
    double ofOne = achieved / (cores * peak.oneThread());
    log(
        "roofline %s: %.3f GFLOP/image, peak %.1f/%.1f GFLOP/s, SparkNet %.0f img/s = %.1f"
            + " GFLOP/s (%.0f %% of %d x 1-thread peak)",
        net.name(),
        peak.flops() / 1e9,
        peak.oneThread(),
        peak.allCores(),
        imgs,
        achieved,
        100 * ofOne,
        cores);
    return String.format(
        Locale.ROOT,
        "| %s | %.4f | %.1f | %.1f | %,.0f (2 workers, tau=%d) | %.1f | **%.0f %%** | %.0f %%"
            + " | %s |%n",
        net.name(),
        peak.flops() / 1e9,
        peak.oneThread(),
        peak.allCores(),
        imgs,
        tau,
        achieved,
        100 * ofOne,
        100 * achieved / peak.allCores(),
        BenchRun.metOrNot(ofOne >= 0.5));
  }
}
