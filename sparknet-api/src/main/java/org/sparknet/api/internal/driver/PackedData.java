package org.sparknet.api.internal.driver;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.LoggerFactory;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.Example;

/**
 * A data set packed for the workers: one cached {@link DataShard} per partition, built on the
 * executors, and each partition's example count (one job, which also surfaces data errors now
 * rather than in the first round).
 */
public final class PackedData {
  private final JavaRDD<DataShard> shards;
  private final long[] counts;

  private PackedData(JavaRDD<DataShard> shards, long[] counts) {
    this.shards = shards;
    this.counts = counts;
  }

  /**
   * Packs {@code examples} as they are partitioned.
   *
   * @param featureSize floats every example must have
   * @param source names the data in errors, for example "Column 'features'"
   * @param target names what expects the size, for example "blob 'data' [64, 1, 28, 28]"
   * @throws IllegalArgumentException naming the partition and example when one has another size
   */
  public static PackedData pack(
      JavaRDD<Example> examples, int featureSize, String source, String target) {
    JavaRDD<DataShard> shards =
        examples
            .mapPartitionsWithIndex(
                (p, it) -> List.of(DataShard.pack(p, it, featureSize, source, target)).iterator(),
                true)
            .persist(StorageLevel.MEMORY_ONLY());
    List<Integer> c;
    try {
      c = shards.map(DataShard::count).collect();
    } catch (Exception e) {
      shards.unpersist(false);
      throw TaskFailures.unwrap(e);
    }
    return new PackedData(shards, c.stream().mapToLong(Integer::longValue).toArray());
  }

  public JavaRDD<DataShard> shards() {
    return shards;
  }

  /** Examples in each partition. */
  public long[] counts() {
    return counts.clone();
  }

  public long total() {
    long s = 0;
    for (long v : counts) {
      s += v;
    }
    return s;
  }

  public int partitions() {
    return counts.length;
  }

  /**
   * Drops the cached shards everywhere (blocking) and keeps the RDD marked for caching, so that the
   * next job caches each shard again where its task runs. ({@code unpersist} alone also unmarks it:
   * every later round would then read and pack its data again, wherever its task lands.)
   */
  public void recache() {
    shards.unpersist(true);
    shards.persist(StorageLevel.MEMORY_ONLY());
  }

  /** Uncaches the shards (not blocking). */
  public void unpersist() {
    shards.unpersist(false);
  }

  /**
   * Uncaches every data set given (nulls skipped) unless the context stopped; a failure is logged,
   * not thrown (the caller is closing).
   */
  public static void uncache(JavaSparkContext sc, PackedData... data) {
    try {
      if (!sc.sc().isStopped()) {
        for (PackedData d : data) {
          if (d != null) {
            d.unpersist();
          }
        }
      }
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(PackedData.class)
          .warn("Could not uncache SparkNet data: {}", e.toString());
    }
  }
}
