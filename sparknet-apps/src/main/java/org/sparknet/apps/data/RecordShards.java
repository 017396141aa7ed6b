package org.sparknet.apps.data;

import java.io.Serializable;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * Numbered records dealt into partitions of consecutive records, each partition reading its own
 * range on its executor: only the bounds (and what the reader holds) travel in the tasks, never the
 * records. The datasets of fixed-size records (IDX, CIFAR, HDF5, image lists) read this way.
 */
final class RecordShards {
  private RecordShards() {}

  /**
   * Reads records {@code [from, to)} on an executor; built from locals only, never {@code this}.
   */
  @FunctionalInterface
  interface Reader<T> extends Serializable {
    List<T> read(int from, int to);
  }

  /**
   * All {@code n} records, {@code [0, n)}, as {@link #read(JavaSparkContext, int, int, int,
   * Reader)}.
   */
  static <T> JavaRDD<T> readAll(JavaSparkContext sc, int n, int partitions, Reader<T> reader) {
    return read(sc, 0, n, partitions, reader);
  }

  /**
   * Records {@code [first, first + n)} as an RDD of {@code partitions} partitions of consecutive
   * records, each read by {@code reader} on its executor.
   */
  static <T> JavaRDD<T> read(
      JavaSparkContext sc, int first, int n, int partitions, Reader<T> reader) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1 but was " + partitions);
    }
    List<Integer> shards = IntStream.range(0, partitions).boxed().toList();
    return sc.parallelize(shards, partitions)
        .flatMap(
            shard -> {
              int from = first + (int) ((long) n * shard / partitions);
              int to = first + (int) ((long) n * (shard + 1) / partitions);
              return reader.read(from, to).iterator();
            });
  }
}
