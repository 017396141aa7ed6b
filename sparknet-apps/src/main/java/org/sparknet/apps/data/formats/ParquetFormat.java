package org.sparknet.apps.data.formats;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;

/**
 * Parquet with a features column (Spark ML vector, {@code array<float>} or {@code array<double>})
 * and a numeric label column, read by Spark itself; one example's shape comes from the hints.
 */
public final class ParquetFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public ParquetFormat() {
    super(
        "parquet",
        "Parquet with a vector/array features column and a label column",
        Kind.VECTOR,
        "features-col",
        "label-col");
  }

  @Override
  DataSource openData(DataRequest r) {
    return new Source(
        this,
        Sources.existing(r).toString(),
        r.setting("features-col", "features"),
        r.setting("label-col", "label"),
        r.labelsRequired());
  }

  private record Source(
      DataFormat format, String path, String featuresCol, String labelCol, boolean labelsRequired)
      implements DataSource {
    @Override
    public long count() {
      return -1;
    }

    @Override
    public boolean labelled() {
      return hasLabel(SparkSession.active());
    }

    private boolean hasLabel(SparkSession spark) {
      return Arrays.asList(spark.read().parquet(path).columns()).contains(labelCol);
    }

    @Override
    public List<Integer> sampleShape(SampleHints h) {
      List<Integer> shape = h.sampleShape() != null ? h.sampleShape() : h.netInputShape();
      if (shape == null) {
        throw new IllegalArgumentException(
            "The shape of one example of Parquet data is not known: pass --sample-shape C,H,W"
                + " (for a flat vector of N values: 1,1,N)");
      }
      return shape;
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      Dataset<Row> df = spark.read().parquet(path);
      String label = labelCol;
      if (!labelsRequired && !hasLabel(spark)) {
        label = "__sparknet_no_label";
        df = df.withColumn(label, functions.lit(-1));
      }
      JavaRDD<Example> rdd = FeatureColumns.examples(df, featuresCol, label);
      if (plan.scale() != 1f) {
        float s = plan.scale();
        rdd =
            rdd.map(
                e -> {
                  float[] v = e.features().clone();
                  for (int i = 0; i < v.length; i++) {
                    v[i] *= s;
                  }
                  return new Example(v, e.label());
                });
      }
      return OrderedPartitions.of(rdd, plan.partitions());
    }
  }
}
