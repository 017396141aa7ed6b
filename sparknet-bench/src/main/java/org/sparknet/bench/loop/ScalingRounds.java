package org.sparknet.bench.loop;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import jdk.jfr.Recording;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.net.ActivationLayer;
import org.sparknet.api.net.InputLayer;
import org.sparknet.api.net.LinearLayer;
import org.sparknet.api.net.NetSpec;
import org.sparknet.api.net.SoftmaxWithLoss;
import org.sparknet.api.net.SolverSpec;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.api.train.WorkerPushes;
import org.sparknet.apps.data.FashionMnist;
import scala.collection.Iterator;
import scala.collection.Iterator$;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The driver of the {@code scaling} benchmark ({@link ScalingSection}), in a JVM of its own per
 * worker count N: a tiny net (784-100-10, so that the round's fixed costs dominate) at tau 1 on N
 * one-core executors, in {@code plain}, {@code allreduce} and {@code downpour} mode, and Spark's
 * own share of a round ({@link #sparkRounds}) as mode {@code spark}. Each measured round is printed
 * as {@code round MODE N FROM TO WALL COMPUTE PUSHES} (epoch milliseconds of the round's start and
 * end, then milliseconds; PUSHES the parameter server's applied pushes, 0 for the synchronous
 * modes), each mode's driver heap after its rounds as {@code heap MODE N MB} (used heap after a
 * full collection, the trainer still open), and the data RDD's serialised size as {@code lineage N
 * BYTES}. This JVM records its own socket calls ({@link SocketBytes}) into the file named by its
 * third argument.
 *
 * <p>Arguments: the master URL, N, the recording file, rounds per mode, then Spark settings as
 * {@code key=value}.
 */
public final class ScalingRounds {
  static final int BATCH = 8;
  static final int HIDDEN = 100;
  static final long SEED = 42;

  /** Pause between rounds, so that no socket call of one round ends in the next one's window. */
  private static final long GAP_MILLIS = 400;

  /**
   * Asynchronous rounds of tau = 1 take a few ms each, so this many times more of them are measured
   * than synchronous ones, for steady medians.
   */
  static final int ASYNC_ROUNDS_PER_ROUND = 10;

  private ScalingRounds() {}

  /** The tiny net: 784 inputs, 100 hidden ReLUs, 10 classes; 79,510 weights. */
  static NetDefinition tinyNet() {
    return NetSpec.named("tiny")
        .add(InputLayer.named("in").setShape(1, 28, 28).setBatchSize(BATCH))
        .add(LinearLayer.named("fc1").setNumOutput(HIDDEN))
        .add(ActivationLayer.relu("relu1"))
        .add(LinearLayer.named("fc2").setNumOutput(10))
        .add(SoftmaxWithLoss.named("loss"))
        .toNetDefinition(SolverSpec.sgd(0.01).optMomentum(0.9).optRandomSeed(SEED));
  }

  /** 784·100 + 100 + 100·10 + 10. */
  static long tinyNetWeights() {
    return 784L * HIDDEN + HIDDEN + HIDDEN * 10L + 10;
  }

  public static void main(String[] args) throws Exception {
    Recording rec = SocketBytes.start();
    int n = Integer.parseInt(args[1]);
    int rounds = Integer.parseInt(args[3]);
    SparkSession.Builder b = SparkSettings.apply(SparkSession.builder()).master(args[0]);
    b.appName("SparkNet scaling benchmark N=" + n);
    SparkSession spark = ClusterRounds.session(b, args, 4);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      ClusterRounds.awaitExecutors(sc, n, 900);
      System.out.printf(Locale.ROOT, "executors %d%n", n);
      JavaRDD<Example> train =
          FashionMnist.locate(null).train().toRdd(sc, 0, n * 32 * BATCH, n, 1f / 256).cache();
      train.count();
      // What every stage's task binary carries of the data, whichever mode runs on it.
      System.out.printf(
          Locale.ROOT,
          "lineage %d %d%n",
          n,
          SparkEnv.get()
              .closureSerializer()
              .newInstance()
              .serialize(train.rdd(), ClassTag$.MODULE$.apply(Object.class))
              .limit());
      sparkRounds(train, n, rounds);
      for (Averaging a : List.of(Averaging.PLAIN, Averaging.ALL_REDUCE, Averaging.downpour())) {
        rounds(sc, train, n, a, rounds);
      }
    } finally {
      spark.stop();
      rec.stop();
      rec.dump(Path.of(args[2]));
    }
  }

  private static void rounds(JavaSparkContext sc, JavaRDD<Example> in, int n, Averaging a, int r)
      throws InterruptedException {
    TrainerConfig cfg = BenchRun.config(tinyNet(), 1, n).optAveraging(a).build();
    String mode = a.mode().label();
    try (SparkNetTrainer t = new SparkNetTrainer(sc, cfg)) {
      t.setTrainingData(in);
      t.trainRound(); // builds the executors' nets
      t.trainRound(); // the executors' paths warm
      Instant from = Instant.now();
      for (int i = 0; i < (a.isAsync() ? r * ASYNC_ROUNDS_PER_ROUND : r); i++) {
        if (!a.isAsync()) {
          // A synchronous round's traffic ends with it: a gap keeps the next one's apart.
          Thread.sleep(GAP_MILLIS);
          from = Instant.now();
        }
        RoundMetrics m = t.trainRound();
        SocketBytes.Span s = SocketBytes.since(from);
        long pushes = m.asyncWorkers().stream().mapToLong(WorkerPushes::pushes).sum();
        // Asynchronous workers run a round ahead, pushing between the driver's rounds: the rounds
        // follow each other with no gap, each window from the previous one's end, so that every
        // push and its bytes fall in one window and pushes/s is over the window.
        long wall = a.isAsync() ? s.toMillis() - s.fromMillis() : m.wallMillis();
        printRound(mode, n, s, wall, m.computeMillis(), pushes);
        from = Instant.ofEpochMilli(s.toMillis());
      }
      Thread.sleep(GAP_MILLIS);
      System.gc();
      long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      System.out.printf(Locale.ROOT, "heap %s %d %.1f%n", mode, n, used / 1048576.0);
    }
  }

  /**
   * Spark's own share of a round, as mode {@value #SPARK_MODE}: a barrier stage of N tasks over the
   * cached data that do nothing and return nothing, as an all-reduce round's stage is scheduled
   * (task launches, results, status updates, the barrier's coordination), without SparkNet's
   * closures, weights or ring.
   */
  private static void sparkRounds(JavaRDD<Example> in, int n, int r) throws InterruptedException {
    ClassTag<Integer> tag = ClassTag$.MODULE$.apply(Integer.class);
    for (int i = 0; i < r + 1; i++) { // the first warms the executors' paths
      Thread.sleep(GAP_MILLIS);
      Instant from = Instant.now();
      in.rdd().barrier().mapPartitions(new NoWork(), false, tag).collect();
      SocketBytes.Span s = SocketBytes.since(from);
      if (i > 0) {
        printRound(SPARK_MODE, n, s, s.toMillis() - s.fromMillis(), 0, 0);
      }
    }
  }

  /** One measured round as {@code round MODE N FROM TO WALL COMPUTE PUSHES}. */
  private static void printRound(
      String mode, int n, SocketBytes.Span s, long wall, long compute, long pushes) {
    System.out.printf(
        Locale.ROOT,
        "round %s %d %d %d %d %d %d%n",
        mode,
        n,
        s.fromMillis(),
        s.toMillis(),
        wall,
        compute,
        pushes);
  }

  /** The mode name of {@link #sparkRounds}. */
  static final String SPARK_MODE = "spark";

  /** A task that reads nothing and returns nothing. */
  private static final class NoWork extends AbstractFunction1<Iterator<Example>, Iterator<Integer>>
      implements Serializable {
    @Override
    public Iterator<Integer> apply(Iterator<Example> it) {
      return Iterator$.MODULE$.empty();
    }
  }
}
