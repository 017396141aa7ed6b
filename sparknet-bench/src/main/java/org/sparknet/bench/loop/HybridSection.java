package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SEED;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.train.SparkNetTrainer;
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
  private final BenchRun run;
  private final Map<Layout, List<Double>> speed = new EnumMap<>(Layout.class);
  private final Map<Layout, List<Double>> accuracy = new EnumMap<>(Layout.class);
  private final Map<Layout, Long> examples = new EnumMap<>(Layout.class);
  private int bigBatchThreads; // what OpenBLAS reports after the big-batch layout sets 2

  HybridSection(BenchRun run) {
    this.run = run;
    for (Layout l : Layout.values()) {
      speed.put(l, new ArrayList<>());
      accuracy.put(l, new ArrayList<>());
    }
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
    for (int rep = 0; rep < run.opt().repeats(); rep++) {
      // Interleaved: each repetition runs the three layouts one after the other.
      for (Layout l : Layout.values()) {
        measure(l, rep);
      }
    }
    report(load);
  }

  private void measure(Layout l, int rep) {
    NetDefinition lenet = BenchRun.lenet();
    NetDefinition def =
        l.batch == LeNet.TRAIN_BATCH
            ? lenet
            : NetProvider.forEngine(lenet.engine()).withBatchSize(lenet, l.batch);
    int threads = run.blasThreads(l.blasThreads);
    if (l == Layout.BIG_BATCH) {
      bigBatchThreads = threads;
    }
    int tau = run.opt().throughputTau();
    try (SparkNetTrainer t =
        run.trainer(BenchRun.config(def, tau, l.workers).optGroupSize(l.group))) {
      t.setTrainingData(run.trainRdd());
      t.setValidationData(run.testRdd());
      long warmUp = t.trainRound().examples(); // builds the executors' nets
      long t0 = System.nanoTime();
      long timed = 0;
      for (int r = 0; r < run.opt().throughputRounds(); r++) {
        timed += t.trainRound().examples();
      }
      double ips = timed / BenchRun.seconds(t0);
      float acc = t.test().get("accuracy");
      speed.get(l).add(ips);
      accuracy.get(l).add((double) acc);
      examples.put(l, warmUp + timed);
      BenchRun.log(
          "hybrid rep %d, %s: %.0f img/s, test accuracy %.4f after %,d examples",
          rep + 1, l.name(), ips, acc, warmUp + timed);
    } finally {
      run.blasThreads(1);
    }
  }

  private void report(String load) {
    int rounds = run.opt().throughputRounds();
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
            run.opt().throughputTau(),
            LR,
            SEED,
            bigBatchThreads,
            rounds,
            rounds + 1,
            run.opt().repeats(),
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
    run.write("loop-hybrid", md);
  }
}
