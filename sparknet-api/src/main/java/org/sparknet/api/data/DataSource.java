package org.sparknet.api.data;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One dataset of a {@link DataFormat}, opened and checked on the driver; its records are read on
 * the executors ({@link #read}), never through the driver.
 */
public interface DataSource {
  /** The format it was opened as. */
  DataFormat format();

  /** The number of examples, or -1 when only reading them can tell. */
  long count();

  /** Whether the examples carry labels (unlabelled ones get label -1). */
  boolean labelled();

  /** The class names, in label order, where the data names them (image folders); else null. */
  default List<String> classes() {
    return null;
  }

  /**
   * The shape of one example as {@link #read} gives it (before the net's crop), from the data
   * itself or, where the data does not fix it, from {@code hints}.
   *
   * @throws IllegalArgumentException when neither tells, or they disagree
   */
  List<Integer> sampleShape(SampleHints hints);

  /** The examples, read on the executors as {@code plan} says. */
  JavaRDD<Example> read(SparkSession spark, ReadPlan plan);

  /**
   * What reading left out, once the examples were read (for example "; 3 undecodable image(s) in
   * --train skipped"), else "".
   */
  default String report() {
    return "";
  }

  /**
   * The examples as a DataFrame for the Spark ML stages: {@code features} ({@code array<float>})
   * and {@code label} (double).
   */
  default Dataset<Row> toDataFrame(SparkSession spark, ReadPlan plan) {
    StructType schema =
        new StructType()
            .add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false)
            .add("label", DataTypes.DoubleType, false);
    JavaRDD<Row> rows =
        read(spark, plan).map(e -> RowFactory.create(e.features(), (double) e.label()));
    return spark.createDataFrame(rows, schema);
  }
}
