package org.sparknet.apps.predict;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
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
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.Example;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import scala.Tuple2;

/**
 * Batch inference over a dataset on the executors: each partition (read on its executor by the data
 * loader) builds the net once (without the dry run, which the driver already did), loads the
 * broadcast weights and runs the TEST-phase net forward in batches of its input batch size (a last,
 * partial batch is padded with copies of its last example, whose outputs are dropped).
 *
 * <p>Rows: {@code index} (example number, long), {@code label} (int, null without labels), {@code
 * prediction} (argmax of the blob, int) and the blob itself ({@code array<float>}, one example's
 * values).
 */
public final class BatchInference {
  private static final List<String> SCORE_CONSUMERS =
      List.of(
          "Accuracy", "SoftmaxWithLoss", "MultinomialLogisticLoss", "HingeLoss", "InfogainLoss");

  private BatchInference() {}

  /** The column that holds the blob: its name, unless that clashes with the other columns. */
  public static String blobColumn(String blob) {
    return List.of("index", "label", "prediction").contains(blob) ? "blob_" + blob : blob;
  }

  /**
   * The blob whose argmax is the prediction when none is named: the top of the first Softmax layer,
   * else the scores that the first Accuracy or classification-loss layer reads (its first bottom),
   * else the top of the last layer; TRAIN-only layers are skipped.
   */
  public static String defaultBlob(String netText, String source) {
    TextFormat.Message net = TextFormat.parse(netText, source);
    String lastTop = null;
    for (TextFormat.Field f : net.all("layer")) {
      TextFormat.Message layer = f.message();
      TextFormat.Message include = layer.child("include");
      if (include != null && "TRAIN".equals(include.value("phase", null))) {
        continue;
      }
      String type = layer.value("type", "");
      List<String> tops = layer.values("top");
      List<String> bottoms = layer.values("bottom");
      if (type.equals("Softmax") && !tops.isEmpty()) {
        return tops.get(0);
      }
      if (SCORE_CONSUMERS.contains(type) && !bottoms.isEmpty()) {
        return bottoms.get(0);
      }
      if (!tops.isEmpty()) {
        lastTop = tops.get(0);
      }
    }
    if (lastTop == null) {
      throw new IllegalArgumentException(source + " has no layer with a top; pass --blob NAME");
    }
    return lastTop;
  }

  /**
   * Predicts every example of {@code data}, numbered in RDD order; {@code labelled} says whether
   * the examples' labels are real (else the label column is null). The result is lazy: writing it
   * runs the job.
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
    // Locals only: the closure must not capture a session or this class.
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

  private static List<Row> partition(
      NetDefinition def,
      WeightCollection weights,
      Iterator<Tuple2<Example, Long>> examples,
      boolean labelled,
      String blob) {
    List<Row> out = new ArrayList<>();
    if (!examples.hasNext()) {
      return out;
    }
    try (CaffeNet net = CaffeNet.create(def, false)) {
      net.setWeights(weights);
      Map<String, Shape> inputs = net.inputShapes(Phase.TEST);
      String dataBlob = inputs.containsKey("data") ? "data" : inputs.keySet().iterator().next();
      Shape in = inputs.get(dataBlob);
      int batch = in.dim(0);
      int size = (int) (in.size() / batch);
      float[] features = new float[batch * size];
      float[] labelBuffer = new float[batch];
      long[] index = new long[batch];
      float[] labels = new float[batch];
      while (examples.hasNext()) {
        int fresh = 0;
        while (fresh < batch && examples.hasNext()) {
          Tuple2<Example, Long> t = examples.next();
          float[] f = t._1().features();
          if (f.length != size) {
            throw new IllegalArgumentException(
                "Blob '"
                    + dataBlob
                    + "' of shape "
                    + in
                    + " expects "
                    + size
                    + " floats per example but example "
                    + t._2()
                    + " has "
                    + f.length
                    + "; fix --sample-shape, the image size or the net's input shape");
          }
          System.arraycopy(f, 0, features, fresh * size, size);
          labels[fresh] = t._1().label();
          index[fresh] = t._2();
          fresh++;
        }
        // pad a last, partial batch with copies of its last example; their outputs are dropped
        for (int r = fresh; r < batch; r++) {
          System.arraycopy(features, (fresh - 1) * size, features, r * size, size);
          labels[r] = labels[fresh - 1];
        }
        for (int r = 0; r < batch; r++) {
          labelBuffer[r] = labelled ? labels[r] : 0;
        }
        Map<String, NDArray> result =
            net.forward(
                blobs -> {
                  blobs.get(dataBlob).copyFrom(features);
                  for (Map.Entry<String, NDArray> e : blobs.entrySet()) {
                    if (!e.getKey().equals(dataBlob) && e.getValue().size() == batch) {
                      e.getValue().copyFrom(labelBuffer);
                    }
                  }
                },
                List.of(blob));
        float[] values;
        try (NDArray a = result.get(blob)) {
          values = a.toArray();
        }
        if (values.length % batch != 0) {
          throw new IllegalArgumentException(
              "Blob '"
                  + blob
                  + "' has "
                  + values.length
                  + " values, not a multiple of the batch "
                  + batch
                  + "; choose a blob with one row per example (--blob)");
        }
        int per = values.length / batch;
        for (int r = 0; r < fresh; r++) {
          float[] row = new float[per];
          System.arraycopy(values, r * per, row, 0, per);
          out.add(RowFactory.create(index[r], labelled ? (int) labels[r] : null, argmax(row), row));
        }
      }
    }
    return out;
  }

  private static int argmax(float[] v) {
    int best = 0;
    for (int i = 1; i < v.length; i++) {
      if (v[i] > v[best]) {
        best = i;
      }
    }
    return best;
  }
}
