package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * Sections {@code compress} and {@code adaptive}: what compressed averaging costs in accuracy and
 * saves in bytes (LeNet and CIFAR-10 quick, 3 epochs, 3 seeds), and which tau adaptive tau picks,
 * the overhead it reaches and the accuracy it gives against fixed taus at equal epochs (LeNet; the
 * AlexNet-sized net's tau and overhead only: its learning rate is 0 here).
 */
final class TrainingOptionsSection {
  /** CIFAR-10 quick's training images a partition in the compress section. */
  private static final int CIFAR_TRAIN_PER_PARTITION = 5_000;

  private final LoopOptions opt;
  private final JavaSparkContext sc;
  private final JavaRDD<Example> trainRdd;
  private final JavaRDD<Example> testRdd;

  TrainingOptionsSection(BenchRun run) {
    this.opt = run.opt();
    this.sc = run.sc();
    this.trainRdd = run.trainRdd();
    this.testRdd = run.testRdd();
  }

  /** One training run's outcome. */
  private record Run(double accuracy, long floats, double over) {}

  /** Trains {@code cfg} on {@code train} until {@code epochs}; tests on {@code test}. */
  private Run train(
      TrainerConfig cfg, JavaRDD<Example> train, JavaRDD<Example> test, List<RoundMetrics> ms) {
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(train);
      t.setValidationData(test);
      ms.addAll(t.train());
      long wall = ms.stream().mapToLong(RoundMetrics::wallMillis).sum();
      long compute = ms.stream().mapToLong(RoundMetrics::computeMillis).sum();
      double acc = t.test().get("accuracy");
      return new Run(
          acc, t.getWeights().numFloats(), (wall - compute) / (double) Math.max(1, wall));
    }
  }

  // ------------------------------------------------------------------ compress

  void compress() {
    String load = Machine.loadAverage();
    double epochs = opt.quick() ? 0.1 : 3;
    List<Long> seeds = opt.quick() ? List.of(42L) : List.of(42L, 43L, 44L);
    StringBuilder md = new StringBuilder("### 14. Compressed averaging: accuracy and bytes\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Workers send their offset from the round's centre in 16 bits (`--compress`), the"
                + " driver averages in 32 bits; the broadcast stays 32-bit. 2 workers on"
                + " `local[2]`, tau=50, %.1f epochs, seeds %s (a fresh trainer per run; weights and"
                + " data order from the seed); test accuracy on the 10,000 test images after the"
                + " last round, median (min–max) over the seeds; bytes per round: broadcast + one"
                + " result per worker. LeNet (`LeNet.definition(seed, 0.03)`) on Fashion-MNIST;"
                + " CIFAR-10 quick (zoo solver) on the first %,d Fashion-MNIST training images"
                + " resized to 32×32×3 (no CIFAR-10 here; all 60,000 would take over an hour on two"
                + " cores for 9 runs). Load average %s before.%n%n"
                + "| net | results | bytes a round (MB) | test accuracy | − uncompressed (points)"
                + " | round (ms) | target |%n|---|---|---:|---:|---:|---:|---|%n",
            epochs,
            seeds,
            CIFAR_TRAIN_PER_PARTITION * WORKERS,
            load));
    List<BenchNet> nets = List.of(BenchNets.lenet(42, LR), BenchNets.cifarQuick(42));
    for (BenchNet net : nets) {
      JavaRDD<Example> train = trainRdd;
      JavaRDD<Example> test = testRdd;
      if (net.channels() != 1) {
        train =
            rawPixels(
                BenchNets.resized(trainRdd, CIFAR_TRAIN_PER_PARTITION, net.channels(), net.side()));
        test = rawPixels(BenchNets.resized(testRdd, Integer.MAX_VALUE, net.channels(), net.side()));
      }
      double plain = Double.NaN;
      for (Compression c : Compression.values()) {
        plain = compressRow(md, net, train, test, c, epochs, seeds, plain);
      }
    }
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-compress", md.toString());
  }

  /**
   * One row of the compress table: {@code net} trained with results compressed by {@code c} for
   * each seed; returns the uncompressed median accuracy ({@code plain}, set by the NONE row).
   */
  private double compressRow(
      StringBuilder md,
      BenchNet net,
      JavaRDD<Example> train,
      JavaRDD<Example> test,
      Compression c,
      double epochs,
      List<Long> seeds,
      double plain) {
    List<Double> acc = new ArrayList<>();
    List<RoundMetrics> all = new ArrayList<>();
    long floats = 0;
    for (long seed : seeds) {
      NetDefinition def =
          net.channels() == 1
              ? BenchNets.lenet(seed, LR).definition()
              : net.definition().withSeed(seed);
      TrainerConfig cfg =
          TrainerConfig.builder()
              .setNetDefinition(def)
              .optTau(50)
              .optWorkers(WORKERS)
              .optSeed(seed)
              .optCompress(c)
              .optMaxEpochs(epochs)
              .build();
      List<RoundMetrics> ms = new ArrayList<>();
      Run r = train(cfg, train, test, ms);
      acc.add(r.accuracy());
      all.addAll(ms.subList(Math.min(1, ms.size() - 1), ms.size()));
      floats = r.floats();
      log("compress %s %s seed %d: accuracy %.4f", net.name(), c.cliName(), seed, r.accuracy());
    }
    Spread a = Spread.of(acc);
    if (c == Compression.NONE) {
      plain = a.median();
    }
    double diff = 100 * (a.median() - plain);
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %s | %.2f | %s | %s | %.0f | %s |%n",
            net.name(),
            c == Compression.NONE ? "32-bit weights" : c.cliName() + " offsets",
            (floats * 4.0 + WORKERS * floats * c.bytesPerValue()) / 1e6,
            a.format("%.4f"),
            c == Compression.NONE ? "–" : String.format(Locale.ROOT, "%+.2f", diff),
            Spread.of(all.stream().map(m -> (double) m.wallMillis()).toList()).median(),
            c == Compression.NONE
                ? ""
                : plain <= 0.15
                    ? "uncompressed at chance: no verdict"
                    : Math.abs(diff) <= 0.3 ? "within 0.3: met" : "**not met**"));
    return plain;
  }

  /**
   * Pixels back to Caffe's 0-255 and centred (x · 256 − 128): the zoo's CIFAR-10 quick expects raw
   * pixels minus a mean image (its first filters start at std 1e-4), and on pixels in [0, 1] it
   * stayed at chance (accuracy 0.10) after 0.1 epochs of a smoke run.
   */
  private static JavaRDD<Example> rawPixels(JavaRDD<Example> examples) {
    return examples.map(
        e -> {
          float[] f = e.features().clone();
          for (int i = 0; i < f.length; i++) {
            f[i] = f[i] * 256 - 128;
          }
          return new Example(f, e.label());
        });
  }

  // ------------------------------------------------------------------ adaptive

  void adaptive() {
    String load = Machine.loadAverage();
    double epochs = opt.quick() ? 0.1 : 2;
    double maxOverhead = 0.05;
    StringBuilder md = new StringBuilder("### 15. Adaptive tau\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "`--tau auto --max-overhead 5` (`TrainerConfig.optAdaptiveTau(0.05, 1000)`, first round"
                + " tau=10) against fixed taus, 2 workers on `local[2]`. LeNet (lr 0.03, seed 42)"
                + " on Fashion-MNIST for %.1f epochs (each run stops after the round that reaches"
                + " them); test accuracy on the 10,000 test images. Taus chosen: median (min–max)"
                + " over the rounds after the first two; overhead: the share of the rounds' wall"
                + " time outside the slowest worker's solver steps, all rounds. Load average %s"
                + " before.%n%n"
                + "| net | tau | rounds | epochs | taus chosen | overhead | test accuracy | wall (s)"
                + " |%n|---|---|---:|---:|---:|---:|---:|---:|%n",
            epochs,
            load));
    NetDefinition lenet = BenchNets.lenet(42, LR).definition();
    for (int tau : opt.quick() ? List.of(10) : List.of(10, 50, 200)) {
      adaptiveRow(md, "LeNet", lenet, trainRdd, epochs, tau, 0);
    }
    adaptiveRow(md, "LeNet", lenet, trainRdd, epochs, 10, maxOverhead);
    BenchNet alex = BenchNets.alexNet(42, opt.alexNetBatch());
    JavaRDD<Example> alexData =
        BenchNets.resized(trainRdd, opt.alexNetImages(), alex.channels(), alex.side());
    TrainerConfig cfg =
        TrainerConfig.builder()
            .setNetDefinition(alex.definition())
            .optTau(2)
            .optAdaptiveTau(maxOverhead, 1000)
            .optWorkers(WORKERS)
            .optMaxRounds(opt.quick() ? 3 : 8)
            .build();
    List<RoundMetrics> ms = new ArrayList<>();
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(alexData);
      ms.addAll(t.train());
    }
    md.append(row(alex.name() + " (lr 0)", "auto (from 2)", ms, Double.NaN));
    md.append(
        "\nThe AlexNet-sized net learns nothing here (its learning rate is 0, as in section 7), so"
            + " only the tau it picks and the overhead it reaches are shown.\n");
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), "loop-adaptive", md.toString());
  }

  private void adaptiveRow(
      StringBuilder md,
      String name,
      NetDefinition def,
      JavaRDD<Example> data,
      double epochs,
      int tau,
      double maxOverhead) {
    TrainerConfig.Builder b =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(tau)
            .optWorkers(WORKERS)
            .optSeed(42)
            .optMaxEpochs(epochs);
    if (maxOverhead > 0) {
      b.optAdaptiveTau(maxOverhead, 1000);
    }
    List<RoundMetrics> ms = new ArrayList<>();
    Run r = train(b.build(), data, testRdd, ms);
    log(
        "adaptive %s tau %s: accuracy %.4f, overhead %.3f",
        name, maxOverhead > 0 ? "auto" : tau, r.accuracy(), r.over());
    md.append(
        row(
            name,
            maxOverhead > 0 ? "auto (from " + tau + ")" : Integer.toString(tau),
            ms,
            r.accuracy()));
  }

  private static String row(String net, String tau, List<RoundMetrics> ms, double accuracy) {
    List<Double> taus = new ArrayList<>();
    for (int i = Math.min(2, ms.size() - 1); i < ms.size(); i++) {
      taus.add((double) ms.get(i).tau());
    }
    long wall = ms.stream().mapToLong(RoundMetrics::wallMillis).sum();
    long compute = ms.stream().mapToLong(RoundMetrics::computeMillis).sum();
    return String.format(
        Locale.ROOT,
        "| %s | %s | %d | %.2f | %s | %.1f %% | %s | %.0f |%n",
        net,
        tau,
        ms.size(),
        ms.get(ms.size() - 1).epoch(),
        Spread.of(taus).format("%.0f"),
        100.0 * (wall - compute) / Math.max(1, wall),
        Double.isNaN(accuracy) ? "–" : String.format(Locale.ROOT, "%.4f", accuracy),
        wall / 1000.0);
  }
}
