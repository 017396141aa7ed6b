package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.LoopBenchmark.log;
import static org.sparknet.bench.loop.LoopBenchmark.seconds;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.bench.loop.BenchNets.BenchNet;
import org.sparknet.bench.loop.GemmShapes.Gemm;
import org.sparknet.caffe.CaffeNet;

/**
 * The suite's sections against the hardware and against raw Caffe (issue 8): roofline, raw, split
 * and model. Each writes its own {@code bench:loop-*} block of the output file.
 */
final class SuiteSections {
  private static final long SEED = 42;
  private static final double LR = 0.03;

  private final LoopOptions opt;
  private final JavaSparkContext sc;
  private final IdxDataset train;
  private final JavaRDD<Example> trainRdd;
  private final JavaRDD<Example> testRdd;

  /** What {@code split} measured, per net name, for {@code model}. */
  private final Map<String, SplitFigures> split = new LinkedHashMap<>();

  /** One net's figures from {@code split}: per tau the medians of the measured rounds. */
  record SplitFigures(
      BenchNet net,
      long weightFloats,
      Map<Integer, Double> computeMsPerImage,
      Map<Integer, Double> overheadMs,
      double memcpyGBps) {}

  SuiteSections(
      LoopOptions opt,
      JavaSparkContext sc,
      IdxDataset train,
      JavaRDD<Example> trainRdd,
      JavaRDD<Example> testRdd) {
    this.opt = opt;
    this.sc = sc;
    this.train = train;
    this.trainRdd = trainRdd;
    this.testRdd = testRdd;
  }

  // ------------------------------------------------------------------ roofline

  void roofline() {
    String load = Machine.loadAverage();
    int cores = Machine.processors();
    long minNanos = opt.quick() ? 5_000_000L : 100_000_000L;
    int reps = opt.quick() ? 1 : opt.repeats();
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
      List<Gemm> gemms = GemmShapes.of(net.definition());
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
      for (Gemm g : gemms) {
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
      double peak1 = flops / time1; // GFLOP/s: the GEMMs alone at their measured rates
      double peakN = flops / timeN;
      md.append(
          String.format(
              Locale.ROOT,
              "%nShape-weighted peak (the step's GEMM FLOPs over the time the GEMMs take at these"
                  + " rates): %.1f GFLOP/s on 1 thread, %.1f on %d.%n%n",
              peak1,
              peakN,
              cores));
      // SparkNet on all cores: 2 workers x 1 BLAS thread.
      int tau = opt.quick() ? 5 : net.batch() >= 100 ? 20 : 50;
      int rounds = opt.quick() ? 1 : 3;
      JavaRDD<Example> data =
          net.channels() == 1
              ? trainRdd
              : BenchNets.resized(trainRdd, 6000, net.channels(), net.side());
      double imgs = sparkNetImagesPerSecond(net.definition(), data, 2, tau, rounds);
      double achieved = flops * imgs / 1e9;
      double ofOne = achieved / (cores * peak1);
      log(
          "roofline %s: %.3f GFLOP/image, peak %.1f/%.1f GFLOP/s, SparkNet %.0f img/s = %.1f"
              + " GFLOP/s (%.0f %% of %d x 1-thread peak)",
          net.name(), flops / 1e9, peak1, peakN, imgs, achieved, 100 * ofOne, cores);
      summary.append(
          String.format(
              Locale.ROOT,
              "| %s | %.4f | %.1f | %.1f | %,.0f (2 workers, tau=%d) | %.1f | **%.0f %%** | %.0f %%"
                  + " | %s |%n",
              net.name(),
              flops / 1e9,
              peak1,
              peakN,
              imgs,
              tau,
              achieved,
              100 * ofOne,
              100 * achieved / peakN,
              ofOne >= 0.5 ? "met" : "**not met**"));
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
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-roofline", md.toString());
  }

  // ------------------------------------------------------------------ raw

  void raw() throws Exception {
    String load = Machine.loadAverage();
    int tau = opt.quick() ? 10 : 50;
    int rounds = opt.quick() ? 2 : 6;
    int steps = tau * rounds;
    BenchNet lenet = BenchNets.lenet(SEED, LR);
    NetDefinition def = lenet.definition();
    DataShard shard = LoopBenchmark.pack(0, train.read(0, train.count() / 2, 1f / 256));
    Sgemm.setThreads(1);
    List<Double> plain = new ArrayList<>();
    List<Double> caffeNet = new ArrayList<>();
    List<Double> spark1 = new ArrayList<>();
    List<Double> spark1t2 = new ArrayList<>();
    List<Double> spark2 = new ArrayList<>();
    List<Double> rCaffe = new ArrayList<>();
    List<Double> rSpark = new ArrayList<>();
    List<Double> rThreads = new ArrayList<>();
    List<Double> rWorkers = new ArrayList<>();
    int threadsSeen;
    try (PlainSolverLoop loop = new PlainSolverLoop(def, shard, SEED);
        CaffeNet net = CaffeNet.create(def);
        SparkNetTrainer one = trainer(sc, def, tau, 1);
        SparkNetTrainer two = trainer(sc, def, tau, 2)) {
      ShardFeeder feeder = new ShardFeeder(shard, "data", "label", SEED, 0, 0);
      int b = loop.batch();
      loop.run(20); // warm-up
      net.train(20, feeder);
      one.setTrainingData(trainRdd);
      two.setTrainingData(trainRdd);
      one.trainRound();
      two.trainRound();
      for (int r = 0; r < opt.repeats(); r++) {
        double p = (double) steps * b / loop.run(steps);
        long t0 = System.nanoTime();
        net.train(steps, feeder);
        double c = (double) steps * b / seconds(t0);
        double s1 = rounds(one, rounds);
        threadsSeen = Sgemm.setThreads(2);
        double s1t2;
        try {
          s1t2 = rounds(one, rounds);
        } finally {
          Sgemm.setThreads(1);
        }
        double s2 = rounds(two, rounds);
        plain.add(p);
        caffeNet.add(c);
        spark1.add(s1);
        spark1t2.add(s1t2);
        spark2.add(s2);
        rCaffe.add(c / p);
        rSpark.add(s1 / p);
        rThreads.add(s1t2 / s1);
        rWorkers.add(s2 / s1);
        log(
            "raw rep %d: plain %.0f, CaffeNet %.0f (%.3f), SparkNet 1 worker %.0f (%.3f), 1 worker"
                + " x %d threads %.0f, 2 workers %.0f img/s",
            r + 1, p, c, c / p, s1, s1 / p, threadsSeen, s1t2, s2);
      }
    }
    Spread caffeRatio = Spread.of(rCaffe);
    Spread sparkRatio = Spread.of(rSpark);
    StringBuilder md =
        new StringBuilder("### 6. Against raw Caffe: one worker, and how to use the cores\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "LeNet (`LeNet.definition(42, 0.03)`), batch 64, Fashion-MNIST. Each repetition runs,"
                + " one after the other, %d steps of: a plain JavaCPP Caffe solver loop"
                + " (`PlainSolverLoop`: the `FloatSGDSolver` built from the same solver and net text"
                + " as CaffeNet's, each batch written straight into the Input blobs in the order a"
                + " `ShardFeeder` with the same seed gives, then `Step(1)`), `CaffeNet.train` on"
                + " the same shard (the first 30,000 training images) with a `ShardFeeder` (input"
                + " checks and the loss read-back included), and SparkNet on one partition (all"
                + " 60,000 images, `optWorkers(1)`: one task at a time, local[1] semantics), %d"
                + " rounds of tau=%d, counted over whole rounds. 1 BLAS thread for all of these."
                + " Then the same SparkNet rounds with `openblas_set_num_threads(2)` (one worker"
                + " using both cores through BLAS), and SparkNet with 2 partitions × 1 thread (%d"
                + " rounds, 2 × as many images). After a warm-up (20 steps, one round each). %d"
                + " repetitions: median (min–max). Load average %s before.%n%n",
            steps,
            rounds,
            tau,
            rounds,
            opt.repeats(),
            load));
    md.append("| What runs | images/s | ratio | target |\n|---|---:|---:|---|\n");
    md.append("| plain JavaCPP solver loop, 1 thread | ")
        .append(Spread.of(plain).format("%,.0f"))
        .append(" | 1 | |\n");
    md.append("| `CaffeNet.train`, 1 thread | ")
        .append(Spread.of(caffeNet).format("%,.0f"))
        .append(" | ")
        .append(caffeRatio.format("%.3f"))
        .append(" of plain | ≥ 0.98: ")
        .append(caffeRatio.median() >= 0.98 ? "met" : "**not met**")
        .append(" |\n");
    md.append(String.format(Locale.ROOT, "| SparkNet, 1 worker, tau=%d, 1 thread | ", tau))
        .append(Spread.of(spark1).format("%,.0f"))
        .append(" | ")
        .append(sparkRatio.format("%.3f"))
        .append(" of plain | ≥ 0.95: ")
        .append(sparkRatio.median() >= 0.95 ? "met" : "**not met**")
        .append(" |\n");
    md.append("| SparkNet, 1 worker, 2 BLAS threads | ")
        .append(Spread.of(spark1t2).format("%,.0f"))
        .append(" | ")
        .append(Spread.of(rThreads).format("%.3f"))
        .append(" of 1 worker × 1 thread | |\n");
    md.append("| SparkNet, 2 workers × 1 thread | ")
        .append(Spread.of(spark2).format("%,.0f"))
        .append(" | ")
        .append(Spread.of(rWorkers).format("%.3f"))
        .append(" of 1 worker × 1 thread | |\n");
    md.append(
        String.format(
            Locale.ROOT,
            "%nThe better use of %d cores is the row with the higher ratio: more workers, or more"
                + " BLAS threads per worker. Load average after: %s.%n",
            Machine.processors(),
            Machine.loadAverage()));
    MarkdownSections.rewrite(opt.output(), "loop-raw", md.toString());
  }

  // ------------------------------------------------------------------ split

  void split() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    StringBuilder md = new StringBuilder("### 7. Where a round's time goes\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Per-round time split from `RoundMetrics` (compute: the slowest worker's solver time;"
                + " broadcast: driver broadcast plus the slowest worker's read and `setWeights`;"
                + " aggregate: the slowest worker's weight copy-out plus the driver's averaging;"
                + " scheduling: the rest of the round's wall time: task launch, serialisation,"
                + " result transfer), as ShmCaffe's Table V. SparkNet on `local[2]`, 2 partitions,"
                + " 1 BLAS thread each, one warm-up round per trainer, medians per round over the"
                + " rounds shown. LeNet on Fashion-MNIST; CIFAR-10 quick (zoo file, Data layers"
                + " made Input layers, batch 100) on Fashion-MNIST images resized to 32×32 and"
                + " replicated to 3 channels (6,000 a partition; no CIFAR-10 here); AlexNet-sized:"
                + " the zoo CaffeNet (60,965,224 parameters) with Input layers of batch %d, on %d"
                + " Fashion-MNIST images a partition resized to 227×227 × 3 (compute on a few"
                + " images is enough for the time split). Load average %s before.%n%n",
            opt.alexNetBatch(),
            opt.alexNetImages(),
            load));
    md.append(
        "| net | parameters | tau | rounds | round (ms) | compute (ms) | broadcast (ms) |"
            + " aggregate (ms) | scheduling (ms) | sync overhead share | compute / image (ms) |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    String alexBytes = "";
    List<BenchNet> nets =
        List.of(
            BenchNets.lenet(SEED, LR),
            BenchNets.cifarQuick(SEED),
            BenchNets.alexNet(SEED, opt.alexNetBatch()));
    for (BenchNet net : nets) {
      boolean alex = net.side() == 227;
      JavaRDD<Example> data =
          net.channels() == 1
              ? trainRdd
              : BenchNets.resized(
                  trainRdd, alex ? opt.alexNetImages() : 6000, net.channels(), net.side());
      Map<Integer, Double> perImage = new LinkedHashMap<>();
      Map<Integer, Double> overhead = new LinkedHashMap<>();
      long params = 0;
      List<RoundMetrics> lastRounds = List.of();
      for (int tau : opt.splitTaus(net.name())) {
        int rounds = opt.splitRounds(net.name(), tau);
        List<RoundMetrics> ms = new ArrayList<>();
        try (SparkNetTrainer t = trainer(sc, net.definition(), tau, 2)) {
          t.setTrainingData(data);
          t.trainRound();
          params = t.getWeights().numFloats();
          for (int r = 0; r < rounds; r++) {
            ms.add(t.trainRound());
          }
        }
        double wall = median(ms, RoundMetrics::wallMillis);
        double compute = median(ms, RoundMetrics::computeMillis);
        double over =
            median(ms, m -> m.broadcastMillis() + m.aggregateMillis() + m.schedulingMillis());
        double share =
            100.0
                * sumOf(ms, m -> m.wallMillis() - m.computeMillis())
                / Math.max(1, sumOf(ms, RoundMetrics::wallMillis));
        double cpi = compute / ((double) tau * net.batch());
        perImage.put(tau, cpi);
        overhead.put(tau, over);
        lastRounds = ms;
        log(
            "split %s tau=%d: round %.0f ms, compute %.0f, overhead %.0f ms (%.1f %%)",
            net.name(), tau, wall, compute, over, share);
        String target =
            net.name().equals("LeNet") && tau == 50
                ? (share <= 3 ? " (≤ 3 %: met)" : " (≤ 3 %: **not met**)")
                : "";
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f %%%s | %.2f |%n",
                net.name(),
                params,
                tau,
                rounds,
                wall,
                compute,
                median(ms, RoundMetrics::broadcastMillis),
                median(ms, RoundMetrics::aggregateMillis),
                median(ms, RoundMetrics::schedulingMillis),
                share,
                target,
                cpi));
      }
      double memcpy = Double.NaN;
      if (alex) {
        int workers = 2;
        long bytes = params * 4L;
        long moved = bytes * (1 + workers); // one broadcast, one result per worker
        double copySeconds = memcpySeconds((int) params, 1 + workers, opt.quick() ? 1 : 3);
        memcpy = moved / copySeconds / 1e9;
        double overSec =
            median(
                    lastRounds,
                    m -> m.broadcastMillis() + m.aggregateMillis() + m.schedulingMillis())
                / 1000;
        double achieved = moved / overSec / 1e9;
        alexBytes =
            String.format(
                Locale.ROOT,
                "%nAlexNet's bytes per round: the broadcast of the weights, %,d bytes (%.0f MB; in"
                    + " local mode it is serialised once into the block manager and read by both"
                    + " tasks in the same JVM), and one result of the same size per worker, %d ×"
                    + " %.0f MB: %.0f MB moved a round. Over the round's non-compute time (broadcast"
                    + " + aggregate + scheduling, median of the last tau's rounds, %.2f s) that is"
                    + " **%.2f GB/s**, against **%.2f GB/s** for `System.arraycopy` of the same %.0f MB"
                    + " (%d heap copies of the %.0f MB weight array, median of %d, in this run):"
                    + " the loop moves weights at %.1f %% of memory-copy speed.%n",
                bytes,
                bytes / 1e6,
                workers,
                bytes / 1e6,
                moved / 1e6,
                overSec,
                achieved,
                memcpy,
                moved / 1e6,
                1 + workers,
                bytes / 1e6,
                opt.quick() ? 1 : 3,
                100 * achieved / memcpy);
        log(
            "split AlexNet: %.0f MB a round, %.2f GB/s achieved, memcpy %.2f GB/s",
            moved / 1e6, achieved, memcpy);
      }
      split.put(net.name(), new SplitFigures(net, params, perImage, overhead, memcpy));
    }
    md.append(alexBytes);
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-split", md.toString());
  }

  /** Seconds for {@code copies} System.arraycopy calls of {@code floats} floats (median). */
  private static double memcpySeconds(int floats, int copies, int reps) {
    float[] src = new float[floats];
    float[] dst = new float[floats];
    java.util.Arrays.fill(src, 1f);
    System.arraycopy(src, 0, dst, 0, floats); // touch the pages
    List<Double> times = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      long t0 = System.nanoTime();
      for (int c = 0; c < copies; c++) {
        System.arraycopy(src, 0, dst, 0, floats);
      }
      times.add(seconds(t0));
    }
    return Spread.of(times).median();
  }

  // ------------------------------------------------------------------ model

  void model() {
    if (split.isEmpty()) {
      log("model: running split first, for its measured figures");
      split();
    }
    int[] workers = {1, 2, 4, 8, 16, 32, 64};
    StringBuilder md = new StringBuilder("### 8. Beyond this machine: a cost model\n\n");
    md.append(
        "Predicted speed-up over one plain solver for W workers on a 10 Gbit/s network, fed by"
            + " the figures of section 7 measured in this run: compute per image c (per tau, one"
            + " core), the per-round overhead o of the loop on this machine (broadcast + aggregate"
            + " + scheduling in local mode, per tau) and the weight bytes M. One round of tau"
            + " steps of batch b:\n\n"
            + "```\n"
            + "T(W)        = tau·b·c + o + M/B + a(W)·M/B,   a(W) = min(W, 2·⌈√W⌉),  B = 1.25 GB/s\n"
            + "speed-up(W) = W·tau·b·c / T(W)\n"
            + "```\n\n"
            + "M/B is the torrent broadcast (each worker receives M once, pipelined); a(W)·M/B the"
            + " results: the driver collects W of them up to 16 partitions, above that a depth-2"
            + " `treeAggregate` whose combiners and then the driver each receive about √W."
            + " Optimistic: o does not grow with W, links do not contend, and statistical"
            + " efficiency (more examples to the same accuracy when averaging) is left out; this"
            + " is throughput, not time to accuracy. (`CostModel` in sparknet-bench.)\n\n");
    StringBuilder head = new StringBuilder("| net | tau | c (ms) | o (ms) | M (MB) |");
    StringBuilder rule = new StringBuilder("|---|---:|---:|---:|---:|");
    for (int w : workers) {
      head.append(" W=").append(w).append(" |");
      rule.append("---:|");
    }
    md.append(head).append("\n").append(rule).append("\n");
    String paper = "";
    for (SplitFigures f : split.values()) {
      if (f.net().name().startsWith("CIFAR")) {
        continue;
      }
      for (int tau : List.of(1, 10, 50)) {
        Double c = nearest(f.computeMsPerImage(), tau);
        Double o = nearest(f.overheadMs(), tau);
        CostModel m =
            new CostModel(
                c / 1000, f.net().batch(), o / 1000, f.weightFloats() * 4.0, CostModel.TEN_GBIT);
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %.2f | %.0f | %.1f |",
                f.net().name(),
                tau,
                c,
                o,
                f.weightFloats() * 4.0 / 1e6));
        for (int w : workers) {
          md.append(String.format(Locale.ROOT, " %.1f |", m.speedUp(w, tau)));
        }
        md.append("\n");
        if (f.net().side() == 227 && tau == 50) {
          double need = m.computeSecondsForSpeedUp(10, 4.4);
          paper =
              String.format(
                  Locale.ROOT,
                  "%nAgainst the SparkNet paper (AlexNet on ImageNet, 3/5/10 GPUs: 2.4×/3.8×/4.4×"
                      + " at tau=50): the model predicts %.1f×/%.1f×/%.1f× here. The two answer"
                      + " different questions. (1) The paper's figures are speed-ups in time to a"
                      + " given accuracy, which include the statistical cost of averaging (more"
                      + " examples seen for the same accuracy, Figure 1b there and section 3 here);"
                      + " the model counts images per second. (2) Compute per image: here c ="
                      + " %.1f ms on one CPU core (batch %d), so a round of tau=%d computes for %.1f"
                      + " s and moving %.0f MB of weights over 10 Gbit/s (%.2f s per transfer) is"
                      + " small beside it; a GPU computes AlexNet one to two orders of magnitude"
                      + " faster, which makes communication the larger part of the round. With this"
                      + " model's o, M and B, 10 workers give 4.4× when a round's compute takes"
                      + " %.2f s (%.0f ms per step of tau=50), the regime of fast GPUs whose rounds"
                      + " are short beside their communication. On CPUs the same model scales almost"
                      + " linearly because compute dwarfs communication. Of the communication, the"
                      + " loop's own per-round cost o = %.2f s (measured here: serialising, copying"
                      + " and averaging 244 MB per worker inside one JVM) already outweighs the"
                      + " network's %.2f s for 10 workers: on a cluster, making o smaller (fewer copies"
                      + " of the weights per round) matters more than the link.%n",
                  m.speedUp(3, 50),
                  m.speedUp(5, 50),
                  m.speedUp(10, 50),
                  c,
                  f.net().batch(),
                  tau,
                  tau * f.net().batch() * c / 1000,
                  f.weightFloats() * 4.0 / 1e6,
                  f.weightFloats() * 4.0 / CostModel.TEN_GBIT,
                  need,
                  need * 1000 / 50,
                  o / 1000,
                  m.networkSeconds(10));
        }
      }
    }
    md.append(paper);
    MarkdownSections.rewrite(opt.output(), "loop-model", md.toString());
  }

  /** The value at {@code tau}, or at the nearest measured tau (quick runs measure fewer). */
  private static Double nearest(Map<Integer, Double> byTau, int tau) {
    Integer best = null;
    for (int t : byTau.keySet()) {
      if (best == null
          || Math.abs(Math.log(t) - Math.log(tau)) < Math.abs(Math.log(best) - Math.log(tau))) {
        best = t;
      }
    }
    return byTau.get(best);
  }

  // ------------------------------------------------------------------ time to accuracy

  /** EASGD moving rate: beta = workers x alpha = 0.9, the value Zhang et al. recommend. */
  private static final double EASGD_ALPHA = 0.45;

  private static final double TARGET_ACCURACY = 0.91;

  void timeToAccuracy() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    double budget = opt.ttaSeconds();
    double testEvery = opt.quick() ? 2 : 15;
    NetDefinition def = BenchNets.lenet(SEED, LR).definition();
    StringBuilder rows = new StringBuilder();
    List<BenchCharts.Run> runs = new ArrayList<>();
    for (int tau : opt.ttaTaus()) {
      for (Averaging avg : List.of(Averaging.PLAIN, Averaging.elastic(EASGD_ALPHA))) {
        String name =
            String.format(
                Locale.ROOT,
                "tau=%d, %s",
                tau,
                avg.isElastic() ? "EASGD α=" + EASGD_ALPHA : "plain");
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        double reached = Double.NaN;
        double best = 0;
        long seen = 0;
        try (SparkNetTrainer t =
            new SparkNetTrainer(
                sc,
                TrainerConfig.builder()
                    .setNetDefinition(def)
                    .optTau(tau)
                    .optWorkers(2)
                    .optSeed(SEED)
                    .optAveraging(avg)
                    .build())) {
          t.setTrainingData(trainRdd);
          t.setValidationData(testRdd);
          double clock = 0;
          double lastTest = 0;
          while (clock < budget) {
            RoundMetrics m = t.trainRound();
            clock += m.wallMillis() / 1000.0;
            seen += m.examples();
            if (clock - lastTest >= testEvery || clock >= budget) {
              lastTest = clock;
              double a = t.test().get("accuracy");
              xs.add(clock);
              ys.add(a);
              best = Math.max(best, a);
              if (Double.isNaN(reached) && a >= TARGET_ACCURACY) {
                reached = clock;
              }
            }
          }
        }
        log(
            "tta %s: best %.4f, last %.4f, %s",
            name,
            best,
            ys.get(ys.size() - 1),
            Double.isNaN(reached) ? "target not reached" : "0.91 at " + Math.round(reached) + " s");
        runs.add(new BenchCharts.Run(name, opt.ttaTaus().indexOf(tau), avg.isElastic(), xs, ys));
        rows.append(
            String.format(
                Locale.ROOT,
                "| %d | %s | %s | %s | %s | %.4f | %.4f | %.1f | %s |%n",
                tau,
                avg.isElastic() ? "EASGD α=" + EASGD_ALPHA : "plain",
                at(xs, ys, budget / 5),
                at(xs, ys, budget * 2 / 5),
                at(xs, ys, budget),
                ys.get(ys.size() - 1),
                best,
                (double) seen / train.count(),
                Double.isNaN(reached)
                    ? "not reached"
                    : String.format(Locale.ROOT, "**%.0f s**", reached)));
      }
    }
    java.nio.file.Path png = null;
    if (opt.plot() != null) {
      png = opt.plot().resolveSibling("time-to-accuracy.png");
      BenchCharts.timeToAccuracy(runs, TARGET_ACCURACY, budget).writePng(png);
    }
    StringBuilder md = new StringBuilder("### 9. Time to accuracy\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "LeNet (`LeNet.definition(42, 0.03)`: lenet_solver's SGD, momentum 0.9, inv policy, lr"
                + " 0.03) on Fashion-MNIST, 2 workers on `local[2]`, 1 BLAS thread each, for %.0f s"
                + " of training per run; plain model averaging and elastic averaging (EASGD,"
                + " α=%.2f, β = 2α = 0.9). The clock counts the training rounds' wall time only;"
                + " the test on the 10,000 test images runs every %.0f s of it, outside the clock."
                + " One run per row, seed 42. Target: test accuracy ≥ %.2f within 5 minutes on 2"
                + " cores. Load average %s before.%n%n",
            budget,
            EASGD_ALPHA,
            testEvery,
            TARGET_ACCURACY,
            load));
    md.append(
        String.format(
            Locale.ROOT,
            "| tau | averaging | accuracy at %.0f s | at %.0f s | at %.0f s | at the end | best |"
                + " epochs |"
                + " time to %.2f |%n|---:|---|---:|---:|---:|---:|---:|---:|---|%n",
            budget / 5,
            budget * 2 / 5,
            budget,
            TARGET_ACCURACY));
    md.append(rows);
    if (png != null) {
      md.append("\nPlot: `").append(png).append("` (a curve per run; dashed: EASGD).\n");
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-tta", md.toString());
  }

  /** The last test accuracy measured at or before {@code seconds}, or "–". */
  private static String at(List<Double> xs, List<Double> ys, double seconds) {
    String out = "–";
    for (int i = 0; i < xs.size(); i++) {
      if (xs.get(i) <= seconds + 1e-9) {
        out = String.format(Locale.ROOT, "%.4f", ys.get(i));
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ helpers

  static SparkNetTrainer trainer(JavaSparkContext sc, NetDefinition def, int tau, int workers) {
    return new SparkNetTrainer(
        sc,
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(tau)
            .optWorkers(workers)
            .optSeed(SEED)
            .build());
  }

  /** Images/s over {@code rounds} whole rounds. */
  private static double rounds(SparkNetTrainer t, int rounds) {
    long t0 = System.nanoTime();
    long examples = 0;
    for (int k = 0; k < rounds; k++) {
      examples += t.trainRound().examples();
    }
    return examples / seconds(t0);
  }

  private double sparkNetImagesPerSecond(
      NetDefinition def, JavaRDD<Example> data, int workers, int tau, int rounds) {
    try (SparkNetTrainer t = trainer(sc, def, tau, workers)) {
      t.setTrainingData(data);
      t.trainRound();
      return rounds(t, rounds);
    }
  }

  private static double median(
      List<RoundMetrics> ms, java.util.function.ToLongFunction<RoundMetrics> f) {
    return Spread.of(ms.stream().map(m -> (double) f.applyAsLong(m)).toList()).median();
  }

  private static double sumOf(
      List<RoundMetrics> ms, java.util.function.ToLongFunction<RoundMetrics> f) {
    return ms.stream().mapToLong(f).sum();
  }
}
