package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.median;
import static org.sparknet.bench.loop.BenchRun.seconds;
import static org.sparknet.bench.loop.BenchRun.sumOf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * Section 7: where a round's time goes (compute, broadcast, aggregate, scheduling) for LeNet,
 * CIFAR-10 quick and the AlexNet-sized CaffeNet, and how fast the loop moves AlexNet's weights
 * against a memory copy. Its figures feed the cost model of section 8.
 */
final class SplitSection {
  private static final int WORKERS = 2;

  private final BenchRun run;

  /** What was measured, per net name. */
  private final Map<String, Figures> figures = new LinkedHashMap<>();

  /** One net's figures: per tau the medians of the measured rounds. */
  record Figures(
      BenchNet net,
      long weightFloats,
      Map<Integer, Double> computeMsPerImage,
      Map<Integer, Double> overheadMs,
      double memcpyGBps) {}

  SplitSection(BenchRun run) {
    this.run = run;
  }

  /** The figures of every net, measured now unless this section already ran. */
  Map<String, Figures> figures() {
    if (figures.isEmpty()) {
      log("running split first, for its measured figures");
      run();
    }
    return figures;
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    LoopOptions opt = run.opt();
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
                + " the zoo CaffeNet (60,965,224 parameters) with Input layers of batch %d and"
                + " learning rate 0 (it times rounds; at the zoo's 0.01 it diverged to NaN), on %d"
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
              ? run.trainRdd()
              : BenchNets.resized(
                  run.trainRdd(), alex ? opt.alexNetImages() : 6000, net.channels(), net.side());
      Map<Integer, Double> perImage = new LinkedHashMap<>();
      Map<Integer, Double> overhead = new LinkedHashMap<>();
      long params = 0;
      List<RoundMetrics> lastRounds = List.of();
      for (int tau : opt.splitTaus(net.name())) {
        List<RoundMetrics> ms = new ArrayList<>();
        params = measure(net, data, tau, ms);
        double cpi = median(ms, RoundMetrics::computeMillis) / ((double) tau * net.batch());
        perImage.put(tau, cpi);
        overhead.put(tau, median(ms, BenchRun::overheadMillis));
        lastRounds = ms;
        md.append(row(net, params, tau, ms, cpi));
      }
      double memcpy = Double.NaN;
      if (alex) {
        memcpy = memcpyGBps(params);
        alexBytes = alexNetBytes(params, lastRounds, memcpy);
      }
      figures.put(net.name(), new Figures(net, params, perImage, overhead, memcpy));
    }
    md.append(alexBytes);
    run.write("loop-split", md);
  }

  /** Trains {@code net} on 2 workers: a warm-up round, then the measured ones into {@code ms}. */
  private long measure(BenchNet net, JavaRDD<Example> data, int tau, List<RoundMetrics> ms) {
    int rounds = run.opt().splitRounds(net.name(), tau);
    try (SparkNetTrainer t = run.trainer(net.definition(), tau, 2)) {
      t.setTrainingData(data);
      t.trainRound();
      long params = t.getWeights().numFloats();
      for (int r = 0; r < rounds; r++) {
        ms.add(t.trainRound());
      }
      return params;
    }
  }

  private static String row(
      BenchNet net, long params, int tau, List<RoundMetrics> ms, double perImage) {
    double wall = median(ms, RoundMetrics::wallMillis);
    double compute = median(ms, RoundMetrics::computeMillis);
    double over = median(ms, BenchRun::overheadMillis);
    double share =
        100.0
            * sumOf(ms, m -> m.wallMillis() - m.computeMillis())
            / Math.max(1, sumOf(ms, RoundMetrics::wallMillis));
    log(
        "split %s tau=%d: round %.0f ms, compute %.0f, overhead %.0f ms (%.1f %%)",
        net.name(), tau, wall, compute, over, share);
    String target =
        net.name().equals("LeNet") && tau == 50
            ? " (≤ 3 %: " + BenchRun.metOrNot(share <= 3) + ")"
            : "";
    return String.format(
        Locale.ROOT,
        "| %s | %,d | %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f %%%s | %.2f |%n",
        net.name(),
        params,
        tau,
        ms.size(),
        wall,
        compute,
        median(ms, RoundMetrics::broadcastMillis),
        median(ms, RoundMetrics::aggregateMillis),
        median(ms, RoundMetrics::schedulingMillis),
        share,
        target,
        perImage);
  }

  /** GB/s of System.arraycopy moving a round's weights: one broadcast, one result per worker. */
  private double memcpyGBps(long params) {
    long moved = params * 4L * (1 + WORKERS);
    return moved / memcpySeconds((int) params, 1 + WORKERS, copyReps()) / 1e9;
  }

  private int copyReps() {
    return run.opt().quick() ? 1 : 3;
  }

  private String alexNetBytes(long params, List<RoundMetrics> lastRounds, double memcpy) {
    long bytes = params * 4L;
    long moved = bytes * (1 + WORKERS);
    double overSec = median(lastRounds, BenchRun::overheadMillis) / 1000;
    double achieved = moved / overSec / 1e9;
    log(
        "split AlexNet: %.0f MB a round, %.2f GB/s achieved, memcpy %.2f GB/s",
        moved / 1e6, achieved, memcpy);
    return String.format(
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
        WORKERS,
        bytes / 1e6,
        moved / 1e6,
        overSec,
        achieved,
        memcpy,
        moved / 1e6,
        1 + WORKERS,
        bytes / 1e6,
        copyReps(),
        100 * achieved / memcpy);
  }

  /** Seconds for {@code copies} System.arraycopy calls of {@code floats} floats (median). */
  private static double memcpySeconds(int floats, int copies, int reps) {
    float[] src = new float[floats];
    float[] dst = new float[floats];
    Arrays.fill(src, 1f);
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
}
