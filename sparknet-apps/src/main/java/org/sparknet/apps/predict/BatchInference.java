package org.sparknet.apps.predict;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
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
import org.sparknet.apps.data.IdxFile;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Batch inference over IDX images on the executors: each partition reads its own range of records,
 * builds the net once (without the dry run, which the driver already did), loads the broadcast
 * weights and runs the TEST-phase net forward in batches of its input batch size (a last, partial
 * batch is padded with copies of its last record, whose outputs are dropped).
 *
 * <p>Rows: {@code index} (record number, long), {@code label} (int, null without a labels file),
 * {@code prediction} (argmax of the blob, int) and the blob itself ({@code array<float>}, one
 * example's values).
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
   * Predicts every record of {@code images} (labels optional) in {@code partitions} partitions. The
   * result is lazy: writing it runs the job.
   */
  public static Dataset<Row> predict(
      SparkSession spark,
      NetDefinition def,
      WeightCollection weights,
      Path images,
      Path labels,
      float scale,
      String blob,
      int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1 but was " + partitions);
    }
    IdxFile imageFile = IdxFile.open(images);
    int n = imageFile.count();
    if (labels != null && IdxFile.open(labels).count() != n) {
      throw new IllegalArgumentException(
          "Images file "
              + images
              + " has "
              + n
              + " records but labels file "
              + labels
              + " has "
              + IdxFile.open(labels).count());
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<WeightCollection> bc = sc.broadcast(weights);
    // Locals only: the closure must not capture a session or this class.
    // Absolute: executors do not share the driver's working directory.
    String imagesPath = images.toAbsolutePath().toString();
    String labelsPath = labels == null ? null : labels.toAbsolutePath().toString();
    List<Integer> shards = IntStream.range(0, partitions).boxed().collect(Collectors.toList());
    JavaRDD<Row> rows =
        sc.parallelize(shards, partitions)
            .flatMap(
                shard -> {
                  int from = (int) ((long) n * shard / partitions);
                  int to = (int) ((long) n * (shard + 1) / partitions);
                  return partition(def, bc.value(), imagesPath, labelsPath, from, to, scale, blob)
                      .iterator();
                });
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
      String imagesPath,
      String labelsPath,
      int from,
      int to,
      float scale,
      String blob) {
    List<Row> out = new ArrayList<>(to - from);
    if (from == to) {
      return out;
    }
    IdxFile images = IdxFile.open(Path.of(imagesPath));
    byte[] pixels = images.readRecords(from, to);
    byte[] labels =
        labelsPath == null ? null : IdxFile.open(Path.of(labelsPath)).readRecords(from, to);
    int size = images.recordSize();
    try (CaffeNet net = CaffeNet.create(def, false)) {
      net.setWeights(weights);
      Map<String, Shape> inputs = net.inputShapes(Phase.TEST);
      String dataBlob = inputs.containsKey("data") ? "data" : inputs.keySet().iterator().next();
      Shape in = inputs.get(dataBlob);
      int batch = in.dim(0);
      long perRow = in.size() / batch;
      if (perRow != size) {
        throw new IllegalArgumentException(
            "Blob '"
                + dataBlob
                + "' of shape "
                + in
                + " expects "
                + perRow
                + " floats per example but "
                + imagesPath
                + " has "
                + size
                + " per record; fix --sample-shape or the net's input shape");
      }
      float[] features = new float[batch * size];
      float[] labelBuffer = new float[batch];
      for (int done = 0; done < to - from; done += batch) {
        int fresh = Math.min(batch, to - from - done);
        for (int r = 0; r < batch; r++) {
          int rec = done + Math.min(r, fresh - 1);
          for (int j = 0; j < size; j++) {
            features[r * size + j] = (pixels[rec * size + j] & 0xff) * scale;
          }
          labelBuffer[r] = labels == null ? 0 : labels[rec] & 0xff;
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
          int rec = done + r;
          out.add(
              RowFactory.create(
                  (long) from + rec, labels == null ? null : labels[rec] & 0xff, argmax(row), row));
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
