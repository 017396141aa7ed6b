package org.sparknet.apps.data.formats;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.apps.data.ShardedDataset;

/**
 * A source over a dataset that the driver opened and measured (count, labels, one example's shape
 * fixed by the data, not by the hints) and whose records its executors read in ranges.
 */
record ShardedSource(
    DataFormat format, long count, boolean labelled, List<Integer> shape, Reader reader)
    implements DataSource {

  /** Reads the dataset's records as {@code plan} says, on the executors. */
  @FunctionalInterface
  interface Reader {
    JavaRDD<Example> read(JavaSparkContext sc, ReadPlan plan);
  }

  /** The source of {@code data}, whose records are read as they are (no per-format transform). */
  static ShardedSource of(DataFormat format, ShardedDataset data) {
    return new ShardedSource(
        format,
        data.count(),
        data.labelled(),
        data.sampleShape(),
        (sc, plan) -> data.toRdd(sc, plan.partitions(), plan.scale()));
  }

  @Override
  public List<Integer> sampleShape(SampleHints hints) {
    return shape;
  }

  @Override
  public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
    return reader.read(Sources.context(spark), plan);
  }
}
