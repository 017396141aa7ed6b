package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.bench.loop.MiniHdfs.Replica;

/**
 * Part (a) of the storage section: the same IDX bytes on HDFS read three ways, in turns within each
 * repetition so that a change in the machine's load falls on all three. Plain: one {@link
 * FSDataInputStream} reading both files from start to end in this JVM; and the same record ranges
 * that SparkNet's partitions cover, each read with a seek and {@code readFully} in a Spark task and
 * thrown away. SparkNet: what {@code train} does before its first round, {@link IdxDataset#toRdd}
 * (each task reads its range and makes one float example per image) packed into one {@link
 * DataShard} per partition, cached, counted (as the trainer's {@code PackedData} does).
 */
final class HdfsLoadRates {
  /** IDX headers: magic and count, then one int per record dimension (rows, columns). */
  private static final int IMAGES_HEADER = 16;

  private static final int LABELS_HEADER = 8;

  /** Seconds of each way of reading, one entry per repetition. */
  record Times(List<Double> plainStream, List<Double> plainTasks, List<Double> loader) {}

  private HdfsLoadRates() {}

  /** Reads {@code data} {@code repeats} times each way, in {@code partitions} partitions. */
  static Times measure(JavaSparkContext sc, Replica data, int partitions, int repeats) {
    Times t = new Times(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (int r = 0; r < repeats; r++) {
      long t0 = System.nanoTime();
      long streamed = plainStream(data);
      t.plainStream().add(seconds(t0));
      t0 = System.nanoTime();
      long read = plainTasks(sc, data, partitions);
      t.plainTasks().add(seconds(t0));
      t0 = System.nanoTime();
      long examples = loader(sc, data, partitions);
      t.loader().add(seconds(t0));
      long expected = bytes(data);
      if (streamed != expected || read != expected || examples != data.count()) {
        throw new IllegalStateException(
            "Read "
                + streamed
                + " and "
                + read
                + " bytes and "
                + examples
                + " examples of "
                + data.images()
                + ", expected "
                + expected
                + " bytes and "
                + data.count()
                + " examples");
      }
      BenchRun.log(
          "storage hdfs rep %d: stream %.2f s, tasks %.2f s, loader %.2f s",
          r + 1, t.plainStream().get(r), t.plainTasks().get(r), t.loader().get(r));
    }
    return t;
  }

  /** Bytes of both files, headers included. */
  static long bytes(Replica data) {
    return IMAGES_HEADER + data.imageBytes() + LABELS_HEADER + data.count();
  }

  private static long plainStream(Replica data) {
    return drain(StoragePath.of(data.images())) + drain(StoragePath.of(data.labels()));
  }

  private static long drain(StoragePath file) {
    byte[] buf = new byte[1 << 20];
    long n = 0;
    try (InputStream in = file.open()) {
      for (int k = in.read(buf); k >= 0; k = in.read(buf)) {
        n += k;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file, e);
    }
    return n;
  }

  /** The record ranges of {@link IdxDataset#toRdd}'s partitions, read raw in Spark tasks. */
  private static long plainTasks(JavaSparkContext sc, Replica data, int partitions) {
    StoragePath images = StoragePath.of(data.images());
    StoragePath labels = StoragePath.of(data.labels());
    int n = data.count();
    long recordSize = data.imageBytes() / n;
    List<Integer> shards = IntStream.range(0, partitions).boxed().collect(Collectors.toList());
    long body =
        sc.parallelize(shards, partitions)
            .map(
                shard -> {
                  long a = (long) n * shard / partitions;
                  long b = (long) n * (shard + 1) / partitions;
                  return range(images, IMAGES_HEADER + a * recordSize, (b - a) * recordSize)
                      + range(labels, LABELS_HEADER + a, b - a);
                })
            .reduce(Long::sum);
    return body + IMAGES_HEADER + LABELS_HEADER;
  }

  private static long range(StoragePath file, long offset, long length) throws IOException {
    byte[] buf = new byte[1 << 20];
    long left = length;
    try (FSDataInputStream in = file.open()) {
      in.seek(offset);
      while (left > 0) {
        int k = (int) Math.min(buf.length, left);
        in.readFully(buf, 0, k);
        left -= k;
      }
    }
    return length;
  }

  /** SparkNet's loader as {@code train} uses it; returns the examples cached, then drops them. */
  private static long loader(JavaSparkContext sc, Replica data, int partitions) {
    IdxDataset set =
        IdxDataset.open(StoragePath.of(data.images()), StoragePath.of(data.labels()), 10);
    JavaRDD<DataShard> shards =
        set.toRdd(sc, partitions, SCALE)
            .mapPartitionsWithIndex((p, it) -> List.of(DataShard.pack(p, it)).iterator(), true)
            .persist(StorageLevel.MEMORY_ONLY());
    try {
      return shards.map(DataShard::count).reduce(Integer::sum);
    } finally {
      shards.unpersist(true);
    }
  }
}
