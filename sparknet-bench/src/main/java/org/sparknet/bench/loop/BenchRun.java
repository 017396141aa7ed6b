package org.sparknet.bench.loop;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.mnist.LeNet;

/**
 * What every section of one benchmark run shares: the options, the Spark context, Fashion-MNIST
 * (the IDX files and their cached RDDs), the settings all sections train with, and the helpers that
 * build trainers, time rounds and write a section's table.
 *
 * @param train the training images, read on the driver for raw solvers
 * @param test the test images
 * @param trainRdd the training images as {@link #WORKERS} partitions, pixels × {@link #SCALE}
 * @param testRdd the test images likewise
 */
record BenchRun(
    LoopOptions opt,
    JavaSparkContext sc,
    IdxDataset train,
    IdxDataset test,
    JavaRDD<Example> trainRdd,
    JavaRDD<Example> testRdd) {
  static final long SEED = 42;
  static final double LR = 0.03; // the demo's learning rate
  static final int WORKERS = 2;
  static final int BATCH = LeNet.TRAIN_BATCH;
  static final float SCALE = 1f / 256;

  /** The demo's tau (DemoCommand's lenet recipe), which the sections that replay its loop use. */
  static final int DEMO_TAU = 50;

  /** LeNet as the apps ship it, with the demo's seed and learning rate. */
  static NetDefinition lenet() {
    return LeNet.definition(SEED, LR);
  }

  /** A trainer's settings: {@code def}, tau, workers and the run's seed; add to it and build. */
  static TrainerConfig.Builder config(NetDefinition def, int tau, int workers) {
    return TrainerConfig.builder()
        .setNetDefinition(def)
        .optTau(tau)
        .optWorkers(workers)
        .optSeed(SEED);
  }

  /**
   * Sets OpenBLAS's threads here and for this thread's Spark jobs, whose tasks set the count of
   * their own (SparkSettings.BLAS_THREADS); returns what OpenBLAS reports.
   */
  int blasThreads(int n) {
    sc.setLocalProperty(SparkSettings.BLAS_THREADS, Integer.toString(n));
    return Sgemm.setThreads(n);
  }

  SparkNetTrainer trainer(TrainerConfig.Builder config) {
    return new SparkNetTrainer(sc, config.build());
  }

  SparkNetTrainer trainer(NetDefinition def, int tau, int workers) {
    return trainer(config(def, tau, workers));
  }

  /**
   * Rounds of the demo's loop ({@link #WORKERS} workers, tau {@link #DEMO_TAU}) that cover the
   * training set {@code demoEpochs} times, rounded down but at least one.
   */
  int demoRounds() {
    long perRound = (long) WORKERS * DEMO_TAU * BATCH;
    return Math.max(1, (int) Math.floor(opt.demoEpochs() * train.count() / perRound));
  }

  /** Images/s over {@code rounds} whole rounds. */
  static double imagesPerSecond(SparkNetTrainer t, int rounds) {
    long t0 = System.nanoTime();
    long examples = 0;
    for (int k = 0; k < rounds; k++) {
      examples += t.trainRound().examples();
    }
    return examples / seconds(t0);
  }

  /** Training images [from, to), packed as partition {@code partition}'s shard. */
  DataShard trainShard(int partition, int from, int to) {
    return pack(partition, train.read(from, to, SCALE));
  }

  static DataShard pack(int partition, List<Example> examples) {
    return DataShard.pack(partition, examples.iterator());
  }

  /** What a round spends outside the solvers: broadcast + aggregate + scheduling. */
  static long overheadMillis(RoundMetrics m) {
    return m.broadcastMillis() + m.aggregateMillis() + m.schedulingMillis();
  }

  static double median(List<RoundMetrics> ms, ToLongFunction<RoundMetrics> f) {
    return Spread.of(ms.stream().map(m -> (double) f.applyAsLong(m)).toList()).median();
  }

  static double sumOf(List<RoundMetrics> ms, ToLongFunction<RoundMetrics> f) {
    return ms.stream().mapToLong(f).sum();
  }

  /** Ends a section's table with the load average and writes it between its markers. */
  void write(String section, StringBuilder md) {
    md.append("\nLoad average after: ").append(Machine.loadAverage()).append(".\n");
    MarkdownSections.rewrite(opt.output(), section, md.toString());
  }

  static String metOrNot(boolean met) {
    return met ? "met" : "**not met**";
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  static void log(String format, Object... args) {
    System.out.printf(
        Locale.ROOT,
        "[%s] %s%n",
        ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("HH:mm:ss")),
        String.format(Locale.ROOT, format, args));
    System.out.flush();
  }
}
