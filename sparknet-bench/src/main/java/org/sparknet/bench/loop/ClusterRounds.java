package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.Example;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.bench.loop.BenchNets.BenchNet;

/**
 * The driver of the {@code cluster} section, in a JVM of its own ({@link ClusterSection} starts it
 * against a {@link LoopbackCluster}): the rounds of section 7's split (LeNet, CIFAR-10 quick and
 * the AlexNet-sized net at its taus, 2 workers) and the AlexNet-sized round with 16-bit results,
 * each round printed as {@code round NET TAU COMPRESSION WALL COMPUTE BROADCAST AGGREGATE
 * SCHEDULING} (milliseconds; measured rounds only), after {@code loopback GB/s} of one TCP stream
 * over 127.0.0.1 and, before the nets, {@code probe NET FLOATS BROADCAST JOB ROUND}: the cluster's
 * own per-round fixed cost for each net's weight size ({@link ResultPathProbe#time}, a Spark job
 * shaped like a round with no solver in it, on the same executors; see {@link ClusterSection}).
 *
 * <p>Arguments: the master URL, {@code quick} or {@code full}, the Fashion-MNIST directory (or
 * {@code -}), the probes as {@code NET:FLOATS,...} (spaces in names as {@code _}; {@code -} for
 * none), then Spark settings as {@code key=value}.
 */
public final class ClusterRounds {

  private ClusterRounds() {}

  /**
   * The session of {@code b} with the {@code key=value} Spark settings from {@code args[first]} on.
   */
  static SparkSession session(SparkSession.Builder b, String[] args, int first) {
    for (int i = first; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      b.config(kv[0], kv[1]);
    }
    return b.getOrCreate();
  }

  public static void main(String[] args) throws Exception {
    LoopOptions opt = args[1].equals("quick") ? LoopOptions.parse("--quick") : LoopOptions.parse();
    System.out.printf(Locale.ROOT, "loopback %.3f%n", loopbackGBps(opt.quick() ? 256 : 2048));
    SparkSession.Builder b = SparkSettings.apply(SparkSession.builder()).master(args[0]);
    b.appName("SparkNet cluster benchmark");
    SparkSession spark = session(b, args, 4);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      awaitExecutors(sc, 2);
      probes(sc, args[3], opt.quick() ? 2 : 5);
      Path data = args[2].equals("-") ? null : Path.of(args[2]);
      JavaRDD<Example> train = FashionMnist.locate(data).train().toRdd(sc, 2, 1f / 256);
      BenchNet alex = BenchNets.alexNet(BenchRun.SEED, opt.alexNetBatch());
      for (BenchNet net :
          List.of(
              BenchNets.lenet(BenchRun.SEED, BenchRun.LR),
              BenchNets.cifarQuick(BenchRun.SEED),
              alex)) {
        JavaRDD<Example> in =
            net.channels() == 1
                ? train
                : BenchNets.resized(
                    train,
                    net.side() == 227 ? opt.alexNetImages() : 6000,
                    net.channels(),
                    net.side());
        for (int tau : opt.splitTaus(net.name())) {
          rounds(sc, net, in, tau, Compression.NONE, opt.splitRounds(net.name(), tau));
        }
        if (net == alex) {
          for (Compression c : List.of(Compression.FP16, Compression.BF16)) {
            rounds(sc, net, in, 1, c, opt.splitRounds(net.name(), 1));
          }
        }
      }
    } finally {
      spark.stop();
    }
  }

  /** The round-shaped probe for each {@code NET:FLOATS} of {@code spec}, one line each. */
  private static void probes(JavaSparkContext sc, String spec, int reps) {
    if (spec.equals("-")) {
      return;
    }
    JavaRDD<Integer> tasks = sc.parallelize(List.of(0, 1), 2).cache();
    tasks.count();
    // The executors' first jobs load classes and compile Spark's and Kryo's paths; without this
    // the first net's probe (the smallest M) would carry that cost in its median.
    ResultPathProbe.time(sc, tasks, 1 << 16, reps, true);
    for (String p : spec.split(",")) {
      String[] nf = p.split(":");
      ResultPathProbe.Timing t =
          ResultPathProbe.time(sc, tasks, Integer.parseInt(nf[1]), reps, true);
      System.out.printf(
          Locale.ROOT,
          "probe %s %s %.1f %.1f %.1f%n",
          nf[0],
          nf[1],
          t.broadcastMs(),
          t.jobMs(),
          t.roundMs());
    }
    tasks.unpersist();
  }

  private static void rounds(
      JavaSparkContext sc, BenchNet net, JavaRDD<Example> in, int tau, Compression c, int n)
      throws InterruptedException {
    TrainerConfig.Builder cfg = BenchRun.config(net.definition(), tau, 2).optCompress(c);
    afterWarmUp(
        sc,
        cfg,
        in,
        n,
        t -> {
          RoundMetrics m = t.trainRound();
          System.out.printf(
              Locale.ROOT,
              "round %s %d %s %d %d %d %d %d%n",
              net.name().replace(' ', '_'),
              tau,
              c.cliName(),
              m.wallMillis(),
              m.computeMillis(),
              m.broadcastMillis(),
              m.aggregateMillis(),
              m.schedulingMillis());
        });
  }

  /** One measured round of {@link #afterWarmUp}: trains with {@code t} and prints what it saw. */
  interface MeasuredRound {
    void run(SparkNetTrainer t) throws InterruptedException;
  }

  /**
   * A trainer of {@code config} on {@code in}: a first round, which builds the executors' nets and
   * is not measured, then {@code n} calls of {@code round}.
   */
  static void afterWarmUp(
      JavaSparkContext sc,
      TrainerConfig.Builder config,
      JavaRDD<Example> in,
      int n,
      MeasuredRound round)
      throws InterruptedException {
    try (SparkNetTrainer t = new SparkNetTrainer(sc, config.build())) {
      t.setTrainingData(in);
      t.trainRound(); // builds the executors' nets
      for (int r = 0; r < n; r++) {
        round.run(t);
      }
    }
  }

  static void awaitExecutors(JavaSparkContext sc, int n) throws InterruptedException {
    awaitExecutors(sc, n, 180);
  }

  /** Waits until {@code n} executors have registered, failing after {@code seconds}. */
  static void awaitExecutors(JavaSparkContext sc, int n, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (sc.sc().statusTracker().getExecutorInfos().length < n + 1) { // + the driver
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "Fewer than " + n + " executors registered in " + seconds + " s");
      }
      Thread.sleep(200);
    }
  }

  /** GB/s of {@code megabytes} sent through one TCP connection over 127.0.0.1. */
  static double loopbackGBps(int megabytes) throws IOException, InterruptedException {
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread reader =
          new Thread(
              () -> {
                try (Socket s = server.accept();
                    InputStream in = s.getInputStream()) {
                  byte[] buf = new byte[1 << 20];
                  while (in.read(buf) >= 0) {
                    // drain
                  }
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      reader.start();
      byte[] chunk = new byte[1 << 20];
      long t0;
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
          OutputStream out = s.getOutputStream()) {
        t0 = System.nanoTime();
        for (int i = 0; i < megabytes; i++) {
          out.write(chunk);
        }
      }
      reader.join();
      return megabytes * (double) (1 << 20) / (System.nanoTime() - t0);
    }
  }
}
