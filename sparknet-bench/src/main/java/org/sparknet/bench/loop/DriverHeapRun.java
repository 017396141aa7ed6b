package org.sparknet.bench.loop;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.Locale;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.RDDInfo;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.data.IdxDataset;

/**
 * The driver of part (b) of the storage section, in a JVM of its own with a small heap ({@link
 * StorageSection} starts it against a {@link LoopbackCluster}): opens IDX files on HDFS as {@code
 * train} does (headers and labels checked on the driver), trains LeNet on them for a few rounds,
 * and prints the heap's peak from the JVM's memory pools: {@code heap_spark MB} (starting Spark and
 * waiting for the executors), then, with the peaks reset, {@code heap_train MB} (opening the data,
 * the first round that reads and caches it on the executors, and the rounds after), each the sum of
 * the heap pools' peaks (an upper bound: the pools peak at different moments); {@code heap_old MB}
 * (the old generation's peak alone); {@code live_spark MB} and {@code live_train MB}, the largest
 * heap right after a collection over the same two spans ({@link HeapAfterGc}); {@code heap_max MB}
 * (what -Xmx allows); {@code round I MS EXAMPLES} per round; {@code cached N OF MB} after the first
 * round (the executors' cached partitions).
 *
 * <p>Arguments: the master URL, the images URI, the labels URI, workers, tau, rounds, then Spark
 * settings as {@code key=value}.
 */
public final class DriverHeapRun {
  private DriverHeapRun() {}

  public static void main(String[] args) throws Exception {
    HeapAfterGc live = HeapAfterGc.start();
    SparkSession.Builder b = SparkSettings.apply(SparkSession.builder()).master(args[0]);
    b.appName("SparkNet storage benchmark: the driver's heap");
    int workers = Integer.parseInt(args[3]);
    int tau = Integer.parseInt(args[4]);
    int rounds = Integer.parseInt(args[5]);
    SparkSession spark = ClusterRounds.session(b, args, 6);
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      ClusterRounds.awaitExecutors(sc, 2);
      print("heap_spark", heapPeakMb(false));
      print("live_spark", live.peakMb());
      resetPeaks();
      live.reset();
      IdxDataset data = IdxDataset.open(StoragePath.of(args[1]), StoragePath.of(args[2]), 10);
      try (SparkNetTrainer t =
          new SparkNetTrainer(sc, BenchRun.config(BenchRun.lenet(), tau, workers).build())) {
        t.setTrainingData(data.toRdd(sc, workers, BenchRun.SCALE));
        for (int r = 0; r < rounds; r++) {
          long t0 = System.nanoTime();
          RoundMetrics m = t.trainRound();
          if (r == 0) {
            cached(sc);
          }
          System.out.printf(
              Locale.ROOT, "round %d %.0f %d%n", r, (System.nanoTime() - t0) / 1e6, m.examples());
        }
      }
      print("heap_train", heapPeakMb(false));
      print("heap_old", heapPeakMb(true));
      print("live_train", live.peakMb());
      System.out.println("collections " + live.collections());
      print("heap_max", Runtime.getRuntime().maxMemory() / 1048576.0);
      System.out.println("images " + data.count());
    } finally {
      spark.stop();
    }
  }

  /** The largest cached RDD: {@code cached PARTITIONS_CACHED PARTITIONS MB} (executor memory). */
  private static void cached(JavaSparkContext sc) {
    RDDInfo best = null;
    for (RDDInfo i : sc.sc().getRDDStorageInfo()) {
      if (best == null || i.memSize() > best.memSize()) {
        best = i;
      }
    }
    if (best != null) {
      System.out.printf(
          Locale.ROOT,
          "cached %d %d %.1f%n",
          best.numCachedPartitions(),
          best.numPartitions(),
          best.memSize() / 1e6);
    }
  }

  private static void print(String key, double mb) {
    System.out.printf(Locale.ROOT, "%s %.1f%n", key, mb);
  }

  /** The sum of the heap pools' peaks in MB, or only the old generation's ({@code oldOnly}). */
  static double heapPeakMb(boolean oldOnly) {
    long bytes = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && (!oldOnly || p.getName().contains("Old"))) {
        bytes += p.getPeakUsage().getUsed();
      }
    }
    return bytes / 1048576.0;
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        p.resetPeakUsage();
      }
    }
  }
}
