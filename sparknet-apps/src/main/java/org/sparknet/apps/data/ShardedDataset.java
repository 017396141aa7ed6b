package org.sparknet.apps.data;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.data.Example;

/**
 * A dataset that knows its size and example shape and reads all of its records as consecutive
 * shards on the executors, with nothing to add per format: what a data format needs to turn it into
 * a source.
 */
public interface ShardedDataset {
  int count();

  boolean labelled();

  /** Shape of one example, e.g. [C, H, W]. */
  List<Integer> sampleShape();

  /**
   * All records as an RDD of {@code partitions} partitions of consecutive records, read on the
   * executors; values multiplied by {@code scale}.
   */
  JavaRDD<Example> toRdd(JavaSparkContext sc, int partitions, float scale);
}
