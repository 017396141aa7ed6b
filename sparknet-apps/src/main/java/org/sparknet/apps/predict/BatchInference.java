package org.sparknet.apps.predict;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.FeatureReader;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.model.Model;
import org.sparknet.api.model.Predictor;
import org.sparknet.api.predict.Prediction;
import scala.Tuple2;

/**
 * The rows of the CLI's {@code predict}: the examples of a data set numbered in RDD order and run
 * through a {@link Predictor} on the executors, one net per partition. Rows: {@code index} (example
 * number, long), {@code label} (int, null without labels), {@code prediction} (argmax of the blob,
 * int) and the blob itself ({@code array<float>}, one example's values).
 */
public final class BatchInference {
  private BatchInference() {}

  /** The column that holds the blob: its name, unless that clashes with the other columns. */
  public static String blobColumn(String blob) {
    return List.of("index", "label", "prediction").contains(blob) ? "blob_" + blob : blob;
  }

  /**
   * Predicts every example of {@code data}; {@code labelled} says whether the examples' labels are
   * real (else the label column is null). Lazy: writing the result runs the job.
   */
  public static Dataset<Row> predict(
      SparkSession spark,
      NetDefinition def,
      WeightCollection weights,
      JavaRDD<Example> data,
      boolean labelled,
      String blob) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<WeightCollection> bc = sc.broadcast(weights);
    JavaRDD<Row> rows =
        data.zipWithIndex()
            .mapPartitions(it -> partition(def, bc.value(), it, labelled, blob).iterator());
    StructType schema =
        new StructType()
            .add("index", DataTypes.LongType, false)
            .add("label", DataTypes.IntegerType, true)
            .add("prediction", DataTypes.IntegerType, false)
            .add(blobColumn(blob), DataTypes.createArrayType(DataTypes.FloatType, false), false);
    return spark.createDataFrame(rows, schema);
  }

  /** Reads an indexed example; a size mismatch names the example and what to fix. */
  private record IndexedExamples(boolean labelled) implements FeatureReader<Tuple2<Example, Long>> {
    @Override
    public void read(Tuple2<Example, Long> item, float[] dest, int offset, int size) {
      float[] f = item._1().features();
      if (f.length != size) {
        throw new IllegalArgumentException(
            "The net's input blob expects "
                + size
                + " floats per example but example "
                + item._2()
                + " has "
                + f.length
                + "; fix --sample-shape, the image size or the net's input shape");
      }
      System.arraycopy(f, 0, dest, offset, size);
    }

    @Override
    public float label(Tuple2<Example, Long> item) {
      return labelled ? item._1().label() : 0f;
    }
  }

  private static List<Row> partition(
      NetDefinition def,
      WeightCollection weights,
      Iterator<Tuple2<Example, Long>> examples,
      boolean labelled,
      String blob) {
    if (!examples.hasNext()) {
      return List.of();
    }
    Model model = Model.of(TaskDevices.resolve(def, TaskContext.getPartitionId()), weights);
    try (Predictor predictor = model.newPredictor()) {
      Iterator<Prediction<Tuple2<Example, Long>>> it =
          predictor.predict(examples, new IndexedExamples(labelled), blob);
      List<Row> out = new java.util.ArrayList<>();
      while (it.hasNext()) {
        Prediction<Tuple2<Example, Long>> p = it.next();
        Example e = p.item()._1();
        out.add(
            RowFactory.create(
                p.item()._2(), labelled ? (int) e.label() : null, p.argmax(), p.values()));
      }
      return out;
    }
  }
}
