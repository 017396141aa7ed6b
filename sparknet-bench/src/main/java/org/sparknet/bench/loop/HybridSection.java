package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.mnist.LeNet;

/**
 * Section 10: hybrid training (ShmCaffe-H, SINGA's worker groups) against separate partitions on
 * this machine's 2 cores. Three ways to put 2 cores on LeNet, each taking 128 examples a step: 2
 * partitions of one solver (batch 64) that average every tau steps; 1 partition holding a group of
 * 2 solvers (batch 64 each, 2 threads) that average after every step; 1 partition of one solver
 * with batch 128 and 2 OpenBLAS threads. Throughput over the same rounds, and test accuracy after
 * the same examples.
 */
final class HybridSection {
  private static final long SEED = 42;
  private static final double LR = 0.03;

  private final LoopOptions opt;
  private final JavaSparkContext sc;
  private final JavaRDD<Example> trainRdd;
  private final JavaRDD<Example> testRdd;

  HybridSection(
      LoopOptions opt, JavaSparkContext sc, JavaRDD<Example> trainRdd, JavaRDD<Example> testRdd) {
    this.opt = opt;
    this.sc = sc;
    this.trainRdd = trainRdd;
    this.testRdd = testRdd;
  }

  private enum Layout {
    PARTITIONS("2 partitions × 1 solver (batch 64), average every tau steps", 2, 1, 64, 1),
    GROUP("1 partition × group of 2 solvers (batch 64 each), average every step", 1, 2, 64, 1),
    BIG_BATCH("1 partition × 1 solver (batch 128), 2 OpenBLAS threads", 1, 1, 128, 2);

    final String label;
    final int workers;
    final int group;
    final int batch;
    final int blasThreads;

    Layout(String label, int workers, int group, int batch, int blasThreads) {
      this.label = label;
      this.workers = workers;
      this.group = group;
      this.batch = batch;
      this.blasThreads = blasThreads;
    }
  }

  void run() {
    String load = Machine.loadAverage();
    int tau = opt.throughputTau();
    int rounds = opt.throughputRounds();
    NetDefinition lenet = LeNet.definition(SEED, LR);
    Map<Layout, List<Double>> speed = new java.util.EnumMap<>(Layout.class);
    Map<Layout, List<Double>> accuracy = new java.util.EnumMap<>(Layout.class);
    Map<Layout, Long> examples = new java.util.EnumMap<>(Layout.class);
    int bigBatchThreads = 0; // what OpenBLAS reports after the big-batch layout sets 2
    for (Layout l : Layout.values()) {
      speed.put(l, new ArrayList<>());
      accuracy.put(l, new ArrayList<>());
    }
    for (int rep = 0; rep < opt.repeats(); rep++) {
      // Interleaved: each repetition runs the three layouts one after the other.
      for (Layout l : Layout.values()) {
        NetDefinition def =
            l.batch == LeNet.TRAIN_BATCH
                ? lenet
                : NetProvider.forEngine(lenet.engine()).withBatchSize(lenet, l.batch);
        int threads = Sgemm.setThreads(l.blasThreads);
        if (l == Layout.BIG_BATCH) {
          bigBatchThreads = threads;
        }
        try (SparkNetTrainer t =
            new SparkNetTrainer(
                sc,
                TrainerConfig.builder()
                    .setNetDefinition(def)
                    .optTau(tau)
                    .optWorkers(l.workers)
                    .optGroupSize(l.group)
                    .optSeed(SEED)
                    .build())) {
          t.setTrainingData(trainRdd);
          t.setValidationData(testRdd);
          long seen = t.trainRound().examples(); // builds the executors' nets
          long t0 = System.nanoTime();
          long timed = 0;
          for (int r = 0; r < rounds; r++) {
            RoundMetrics m = t.trainRound();
            timed += m.examples();
          }
          double ips = timed / LoopBenchmark.seconds(t0);
          seen += timed;
          float acc = t.test().get("accuracy");
          speed.get(l).add(ips);
          accuracy.get(l).add((double) acc);
          examples.put(l, seen);
          LoopBenchmark.log(
              "hybrid rep %d, %s: %.0f img/s, test accuracy %.4f after %,d examples",
              rep + 1, l.name(), ips, acc, seen);
        } finally {
          Sgemm.setThreads(1);
        }
      }
    }
    double base = Spread.of(speed.get(Layout.PARTITIONS)).median();
    StringBuilder md = new StringBuilder();
    md.append("### 10. Hybrid: a group of solvers per worker against separate partitions\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "ShmCaffe-H / SINGA worker groups (`TrainerConfig.optGroupSize`, `train --group-size`)"
                + " on this box's 2 cores: three ways to spend them on LeNet, each taking 128"
                + " Fashion-MNIST examples a step, tau=%d, lr %.2f, seed %d, on `local[2]`. A"
                + " group's solvers step on 2 threads and average after every step, which equals"
                + " one solver of twice the batch (`CaffeTrainerIT`); the third layout is that"
                + " solver, with OpenBLAS threads set to 2 (`blas_get_num_threads` read back:"
                + " %d). Each repetition builds a fresh trainer per layout, runs one warm-up round,"
                + " then times %d rounds; test accuracy on the 10,000 test images after those"
                + " %d rounds. %d repetitions, interleaved: median (min–max). Load average %s"
                + " before.%n%n",
            tau,
            LR,
            SEED,
            bigBatchThreads,
            rounds,
            rounds + 1,
            opt.repeats(),
            load));
    md.append("| Layout | images/s | ÷ 2 partitions | examples | test accuracy |\n");
    md.append("|---|---:|---:|---:|---:|\n");
    for (Layout l : Layout.values()) {
      Spread s = Spread.of(speed.get(l));
      md.append("| ")
          .append(l.label)
          .append(" | ")
          .append(s.format("%,.0f"))
          .append(" | ")
          .append(String.format(Locale.ROOT, "%.3f", s.median() / base))
          .append(" | ")
          .append(String.format(Locale.ROOT, "%,d", examples.get(l)))
          .append(" | ")
          .append(Spread.of(accuracy.get(l)).format("%.4f"))
          .append(" |\n");
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-hybrid", md.toString());
  }
}
