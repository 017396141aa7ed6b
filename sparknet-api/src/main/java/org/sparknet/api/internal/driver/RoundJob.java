package org.sparknet.api.internal.driver;

import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function2;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.PartitionResult;

/**
 * What a round driver runs every round over one training set, synchronous or not: the one RDD whose
 * tasks train (each round's orders reach them through the driver's slot, so the RDD and its
 * function are built once, not on every round's critical path), its partition count, and the check
 * that the data stays spread over the executors.
 */
record RoundJob(JavaRDD<PartitionResult> rdd, int partitions, DataSpread spread) {

  /** The job over {@code data} whose tasks run {@code train}, a method of the driver's slot. */
  static RoundJob over(
      JavaSparkContext sc,
      PackedData data,
      Function2<Integer, Iterator<DataShard>, Iterator<PartitionResult>> train) {
    return new RoundJob(
        data.shards().mapPartitionsWithIndex(train, true),
        data.partitions(),
        new DataSpread(sc, data));
  }
}
