package org.sparknet.bench.loop;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerBlockUpdated;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * The driver of the {@code allreduce} section, in a JVM of its own ({@link AllReduceSection} starts
 * it against a {@link LoopbackCluster} of 3 executors): the AlexNet-sized round at tau 1 with the
 * driver's average and with the all-reduce, on 2 and 3 workers. Each measured round is printed as
 * {@code ar AVERAGING WORKERS WALL COMPUTE RESULT_BYTES BROADCAST_BYTES}: the bytes the driver
 * received as task results (Spark's task metrics) and the bytes of broadcast pieces the executors
 * stored (fetched from the driver or from each other: an upper bound on the broadcast through the
 * driver), counted by a listener.
 *
 * <p>Arguments: the master URL, {@code quick} or {@code full}, the Fashion-MNIST directory (or
 * {@code -}), then Spark settings as {@code key=value}.
 */
public final class AllReduceRounds {
  private AllReduceRounds() {}

  /** Bytes through the driver, as Spark's events report them. */
  private static final class DriverBytes extends SparkListener {
    final AtomicLong results = new AtomicLong();
    final AtomicLong broadcast = new AtomicLong();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd e) {
      if (e.taskMetrics() != null) {
        results.addAndGet(e.taskMetrics().resultSize());
      }
    }

    @Override
    public void onBlockUpdated(SparkListenerBlockUpdated e) {
      var info = e.blockUpdatedInfo();
      if (info.blockId().isBroadcast()
          && info.blockId().name().contains("piece")
          && !info.blockManagerId().isDriver()) {
        broadcast.addAndGet(info.memSize() + info.diskSize());
      }
    }
  }

  public static void main(String[] args) throws Exception {
    LoopOptions opt = args[1].equals("quick") ? LoopOptions.parse("--quick") : LoopOptions.parse();
    SparkSession.Builder b = SparkSettings.apply(SparkSession.builder()).master(args[0]);
    b.appName("SparkNet all-reduce benchmark");
    SparkSession spark = ClusterRounds.session(b, args, 3);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      ClusterRounds.awaitExecutors(sc, 3);
      DriverBytes bytes = new DriverBytes();
      sc.sc().addSparkListener(bytes);
      Path data = args[2].equals("-") ? null : Path.of(args[2]);
      BenchNet alex = BenchNets.alexNet(BenchRun.SEED, opt.alexNetBatch());
      JavaRDD<Example> train = FashionMnist.locate(data).train().toRdd(sc, 3, 1f / 256);
      JavaRDD<Example> in = BenchNets.resized(train, opt.alexNetImages(), 3, alex.side());
      int n = opt.quick() ? 2 : 3;
      for (int workers : List.of(2, 3)) {
        for (Averaging a : List.of(Averaging.PLAIN, Averaging.ALL_REDUCE)) {
          rounds(sc, alex, in, workers, a, n, bytes);
        }
      }
    } finally {
      spark.stop();
    }
  }

  private static void rounds(
      JavaSparkContext sc,
      BenchNet net,
      JavaRDD<Example> in,
      int workers,
      Averaging a,
      int n,
      DriverBytes bytes)
      throws InterruptedException {
    TrainerConfig.Builder cfg = BenchRun.config(net.definition(), 1, workers).optAveraging(a);
    ClusterRounds.afterWarmUp(
        sc,
        cfg,
        in,
        n,
        t -> {
          Thread.sleep(1500); // the listener has the events of what came before
          long results0 = bytes.results.get();
          long broadcast0 = bytes.broadcast.get();
          RoundMetrics m = t.trainRound();
          Thread.sleep(1500);
          System.out.printf(
              Locale.ROOT,
              "ar %s %d %d %d %d %d%n",
              a,
              workers,
              m.wallMillis(),
              m.computeMillis(),
              bytes.results.get() - results0,
              bytes.broadcast.get() - broadcast0);
        });
  }
}
