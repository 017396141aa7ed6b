package org.sparknet.api.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.TaskCompletionListener;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.data.FeatureReader;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.internal.worker.BlasThreads;
import org.sparknet.api.predict.BatchPredictor;
import org.sparknet.api.predict.ExampleBatches;
import org.sparknet.api.predict.Prediction;
import org.sparknet.ndarray.Shape;

/**
 * The transform of every SparkNet model: batched inference on the executors through {@link
 * BatchPredictor}, each output row the input row with the model's columns appended.
 */
final class StageInference {
  private StageInference() {}

  /**
   * The appended columns, in this order. Classifier: raw scores (Vector), probabilities (softmax of
   * the scores, Vector), prediction (double: the argmax, or with {@code thresholds} the argmax of
   * each probability over its class's threshold, as Spark's probabilistic classifiers predict).
   * General: the blob's values (array of float), its first value (double).
   */
  record Output(
      boolean classifier,
      boolean raw,
      boolean probability,
      boolean prediction,
      boolean array,
      double[] thresholds)
      implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A classifier's columns; {@code thresholds} null for a plain argmax. */
    static Output classifier(boolean raw, boolean probability, boolean prediction, double[] t) {
      return new Output(true, raw, probability, prediction, false, t);
    }

    /** A general model's columns. */
    static Output general(boolean prediction) {
      return new Output(false, false, false, prediction, true, null);
    }
  }

  /** What every task needs; shipped inside the closure. */
  private record Plan(
      NetDefinition definition,
      InputBlobs blobs,
      String outputBlob,
      FeatureColumns.Reader features,
      Output output)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * {@code dataset} with the output columns appended (schema {@code out}), every input column kept.
   * Lazy, like every transform: the weights are broadcast now, the nets are built by the tasks.
   */
  static Dataset<Row> transform(
      Dataset<?> dataset,
      SparkNetParams<?> p,
      WeightCollection weights,
      StructType out,
      Output output) {
    Dataset<Row> df = dataset.toDF();
    StageSupport.checkFeatures(df.schema(), p);
    String fc = p.getFeaturesCol();
    NetDefinition def = StageSupport.definition(p, () -> FeatureColumns.size(df, fc));
    Plan plan =
        new Plan(
            def,
            StageSupport.blobs(p),
            outputBlob(p, def),
            new FeatureColumns.Reader(
                fc, df.schema().fieldIndex(fc), "the net's input blob '" + p.getDataBlob() + "'"),
            output);
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext());
    Broadcast<WeightCollection> bc = sc.broadcast(weights);
    return df.mapPartitions(
        (MapPartitionsFunction<Row, Row>) rows -> predictions(plan, bc.value(), rows),
        Encoders.row(out));
  }

  /** The blob to read: the named one, else the engine's scores blob. */
  static String outputBlob(SparkNetParams<?> p, NetDefinition def) {
    String blob = p.getOutputBlob();
    return blob == null || blob.isBlank()
        ? NetProvider.forEngine(def.engine()).defaultScoresBlob(def)
        : blob;
  }

  /**
   * The task's output rows. The net is built when the first row is asked for and owned by the task:
   * closed when the rows run out or, if the consumer stops early or fails, by a task completion
   * listener on the task's thread.
   */
  private static Iterator<Row> predictions(
      Plan plan, WeightCollection weights, Iterator<Row> rows) {
    if (!rows.hasNext()) {
      return rows;
    }
    BlasThreads.forTask();
    Net net =
        NetProvider.build(TaskDevices.resolve(plan.definition(), TaskContext.getPartitionId()));
    boolean[] closed = {false};
    Runnable close =
        () -> {
          if (!closed[0]) {
            closed[0] = true;
            net.close();
          }
        };
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener((TaskCompletionListener) ctx -> close.run());
    }
    Iterator<Prediction<Row>> it;
    try {
      net.setWeights(weights);
      it =
          new BatchPredictor(net, plan.blobs())
              .predict(
                  new ExampleBatches<>(rows, plan.features(), plan.blobs()), plan.outputBlob());
    } catch (RuntimeException e) {
      close.run();
      throw e;
    }
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        boolean more = !closed[0] && it.hasNext();
        if (!more) {
          close.run();
        }
        return more;
      }

      @Override
      public Row next() {
        return append(it.next(), plan.output());
      }
    };
  }

  /**
   * Spark's rule for probabilistic classifiers with thresholds: the class of the largest {@code
   * probability[k] / thresholds[k]}; a threshold of 0 makes its class win unless its probability is
   * 0 too.
   */
  static int thresholdedArgmax(double[] probability, double[] thresholds) {
    int best = 0;
    double max = Double.NEGATIVE_INFINITY;
    for (int k = 0; k < probability.length; k++) {
      double scaled =
          thresholds[k] == 0
              ? (probability[k] == 0 ? Double.NaN : Double.POSITIVE_INFINITY)
              : probability[k] / thresholds[k];
      if (scaled > max) {
        max = scaled;
        best = k;
      }
    }
    return best;
  }

  /**
   * The output blob's values for one example, computed here on the driver with a net built for the
   * call and closed after it: single-vector predict and the class count.
   *
   * @param features the example's floats; null: zeros of the net's input size
   * @throws IllegalArgumentException when the features have another size than the net's input
   */
  static float[] predictOne(SparkNetParams<?> p, WeightCollection weights, float[] features) {
    NetDefinition def =
        TaskDevices.forDriver(
            StageSupport.definition(p, () -> features == null ? -1 : features.length));
    InputBlobs blobs = StageSupport.blobs(p);
    try (Net net = NetProvider.build(def)) {
      net.setWeights(weights);
      BatchPredictor predictor = new BatchPredictor(net, blobs);
      Shape data = net.inputShapes(Phase.TEST).get(blobs.data());
      int size = Math.toIntExact(data.size() / data.dim(0));
      float[] x = features == null ? new float[size] : features;
      if (x.length != size) {
        throw new IllegalArgumentException(
            "The features have "
                + x.length
                + " values but the net's input blob '"
                + blobs.data()
                + "' expects "
                + size);
      }
      FeatureReader<float[]> reader =
          (item, dest, offset, n) -> System.arraycopy(item, 0, dest, offset, n);
      return predictor
          .predict(new ExampleBatches<>(List.of(x).iterator(), reader, blobs), outputBlob(p, def))
          .next()
          .values();
    }
  }

  private static Row append(Prediction<Row> p, Output o) {
    Row row = p.item();
    List<Object> values = new ArrayList<>(row.length() + 3);
    for (int i = 0; i < row.length(); i++) {
      values.add(row.get(i));
    }
    float[] out = p.values();
    if (o.classifier()) {
      double[] raw = new double[out.length];
      for (int j = 0; j < out.length; j++) {
        raw[j] = out[j];
      }
      if (o.raw()) {
        values.add(Vectors.dense(raw));
      }
      if (o.probability()) {
        values.add(Vectors.dense(p.softmax()));
      }
      if (o.prediction()) {
        values.add(
            o.thresholds() == null
                ? (double) p.argmax()
                : (double) thresholdedArgmax(p.softmax(), o.thresholds()));
      }
    } else {
      if (o.array()) {
        values.add(out);
      }
      if (o.prediction()) {
        values.add(out.length == 0 ? Double.NaN : (double) out[0]);
      }
    }
    return RowFactory.create(values.toArray());
  }
}
