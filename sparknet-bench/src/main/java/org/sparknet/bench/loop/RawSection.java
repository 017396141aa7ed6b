package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.imagesPerSecond;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.caffe.CaffeNet;

/**
 * Section 6: one worker against raw Caffe (a plain JavaCPP solver loop and {@code CaffeNet.train}),
 * the share of a step that CaffeNet's divergence checks take (target at most 2 %), and whether the
 * second core is better spent on a second worker or on BLAS threads.
 */
final class RawSection {
  /**
   * One repetition's images/s of each way of running, and the share of a plain step that the
   * divergence checks take.
   */
  private record Rep(
      double plain,
      double caffeNet,
      double spark1,
      double spark1t2,
      double spark2,
      double checkShare) {}

  private final BenchRun run;
  private final List<Rep> reps = new ArrayList<>();

  RawSection(BenchRun run) {
    this.run = run;
  }

  void run() throws Exception {
    String load = Machine.loadAverage();
    int tau = run.opt().quick() ? 10 : 50;
    int rounds = run.opt().quick() ? 2 : 6;
    int steps = tau * rounds;
    NetDefinition def = BenchRun.lenet();
    DataShard shard = run.trainShard(0, 0, run.train().count() / 2);
    Sgemm.setThreads(1);
    try (PlainSolverLoop loop = new PlainSolverLoop(def, shard, SEED);
        CaffeNet net = CaffeNet.create(def);
        SparkNetTrainer one = run.trainer(def, tau, 1);
        SparkNetTrainer two = run.trainer(def, tau, 2)) {
      ShardFeeder feeder = new ShardFeeder(shard, "data", "label", SEED, 0, 0);
      int b = loop.batch();
      loop.run(20); // warm-up
      net.train(20, feeder);
      one.setTrainingData(run.trainRdd());
      two.setTrainingData(run.trainRdd());
      one.trainRound();
      two.trainRound();
      for (int r = 0; r < run.opt().repeats(); r++) {
        double plainSeconds = loop.run(steps);
        double p = (double) steps * b / plainSeconds;
        double share = loop.checks(steps) / plainSeconds;
        long t0 = System.nanoTime();
        net.train(steps, feeder);
        double c = (double) steps * b / seconds(t0);
        double s1 = imagesPerSecond(one, rounds);
        int threadsSeen = run.blasThreads(2);
        double s1t2;
        try {
          s1t2 = imagesPerSecond(one, rounds);
        } finally {
          run.blasThreads(1);
        }
        double s2 = imagesPerSecond(two, rounds);
        reps.add(new Rep(p, c, s1, s1t2, s2, share));
        log(
            "raw rep %d: plain %.0f, CaffeNet %.0f (%.3f), SparkNet 1 worker %.0f (%.3f), 1 worker"
                + " x %d threads %.0f, 2 workers %.0f img/s",
            r + 1, p, c, c / p, s1, s1 / p, threadsSeen, s1t2, s2);
      }
    }
    report(load, tau, rounds);
  }

  /** One figure of every repetition, in order. */
  private List<Double> column(ToDoubleFunction<Rep> figure) {
    return reps.stream().map(figure::applyAsDouble).toList();
  }

  /** The repetitions' ratios of one figure to another. */
  private Spread ratios(ToDoubleFunction<Rep> of, ToDoubleFunction<Rep> to) {
    return Spread.of(reps.stream().map(r -> of.applyAsDouble(r) / to.applyAsDouble(r)).toList());
  }

  private static List<Double> percent(List<Double> shares) {
    List<Double> out = new ArrayList<>();
    shares.forEach(x -> out.add(100 * x));
    return out;
  }

  /** A table row: what ran, its images/s (median, min–max), the ratio and the target. */
  private static void row(
      StringBuilder md, String what, List<Double> imagesPerSecond, String ratio, String target) {
    md.append("| ")
        .append(what)
        .append(" | ")
        .append(Spread.of(imagesPerSecond).format("%,.0f"))
        .append(" | ")
        .append(ratio)
        .append(" | ")
        .append(target)
        .append(" |\n");
  }

  /** A row of one way to use the second core, against one worker on one thread. */
  private void secondCoreRow(StringBuilder md, String what, ToDoubleFunction<Rep> figure) {
    String ratio = ratios(figure, Rep::spark1).format("%.3f") + " of 1 worker × 1 thread";
    row(md, what, column(figure), ratio, "");
  }

  private void report(String load, int tau, int rounds) {
    Spread caffeRatio = ratios(Rep::caffeNet, Rep::plain);
    Spread sparkRatio = ratios(Rep::spark1, Rep::plain);
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
            tau * rounds,
            rounds,
            tau,
            rounds,
            run.opt().repeats(),
            load));
    md.append("| What runs | images/s | ratio | target |\n|---|---:|---:|---|\n");
    row(md, "plain JavaCPP solver loop, 1 thread", column(Rep::plain), "1", "");
    row(
        md,
        "`CaffeNet.train`, 1 thread",
        column(Rep::caffeNet),
        caffeRatio.format("%.3f") + " of plain",
        "≥ 0.98: " + BenchRun.metOrNot(caffeRatio.median() >= 0.98));
    row(
        md,
        String.format(Locale.ROOT, "SparkNet, 1 worker, tau=%d, 1 thread", tau),
        column(Rep::spark1),
        sparkRatio.format("%.3f") + " of plain",
        "≥ 0.95: " + BenchRun.metOrNot(sparkRatio.median() >= 0.95));
    Spread share = Spread.of(column(Rep::checkShare));
    md.append("| CaffeNet's divergence checks of one step alone (every blob the forward pass")
        .append(" writes and every weight blob summed into one value by BLAS gemv, read back once;")
        .append(" `StepProbe`) | — | ")
        .append(Spread.of(percent(column(Rep::checkShare))).format("%.2f"))
        .append(" % of a plain step | ≤ 2 %: ")
        .append(BenchRun.metOrNot(share.median() <= 0.02))
        .append(" |\n");
    secondCoreRow(md, "SparkNet, 1 worker, 2 BLAS threads", Rep::spark1t2);
    secondCoreRow(md, "SparkNet, 2 workers × 1 thread", Rep::spark2);
    md.append(
        String.format(
            Locale.ROOT,
            "%nThe better use of %d cores is the row with the higher ratio: more workers, or more"
                + " BLAS threads per worker. Load average after: %s.%n",
            Machine.processors(),
            Machine.loadAverage()));
    MarkdownSections.rewrite(run.opt().output(), "loop-raw", md.toString());
  }
}
