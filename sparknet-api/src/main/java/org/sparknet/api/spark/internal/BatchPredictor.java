package org.sparknet.api.spark.internal;

import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.util.TaskCompletionListener;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Batched inference over one partition's rows, on the executor: builds the net once for the task,
 * loads the weights, and runs the TEST-phase net forward in batches of its input batch size (a
 * last, partial batch is padded with copies of its last row, whose outputs are dropped). Each
 * output row is the input row with the plan's columns appended. Lazy: a batch runs when its rows
 * are asked for.
 *
 * <p>The net is owned by the task: it is closed when the rows run out, or, when the consumer stops
 * early or fails, by a task completion listener, on the task's thread; nothing waits for the GC.
 */
public final class BatchPredictor implements Iterator<Row>, AutoCloseable {

  /** What to compute and append; shipped to the executors inside the closure. */
  public record Plan(
      NetDefinition definition,
      String dataBlob,
      String outputBlob,
      String featuresCol,
      int featuresIndex,
      StageSupport.FeatureKind kind,
      Output output)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * The appended columns, in this order. Classifier: raw scores (Vector), probabilities (softmax of
   * the scores, Vector), prediction (argmax, double). General: the blob's values (array of float),
   * its first value (double).
   */
  public record Output(
      boolean classifier, boolean raw, boolean probability, boolean prediction, boolean array)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private final Plan plan;
  private final WeightCollection weights;
  private final Iterator<Row> input;
  private final ArrayDeque<Row> ready = new ArrayDeque<>();
  private Net net;
  private int batch;
  private int size;
  private String shapeText;
  private List<String> otherInputs;
  private boolean closed;

  public BatchPredictor(Plan plan, WeightCollection weights, Iterator<Row> input) {
    this.plan = plan;
    this.weights = weights;
    this.input = input;
  }

  @Override
  public boolean hasNext() {
    if (!ready.isEmpty()) {
      return true;
    }
    if (closed || !input.hasNext()) {
      close();
      return false;
    }
    runBatch();
    return !ready.isEmpty();
  }

  @Override
  public Row next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return ready.poll();
  }

  private void open() {
    TaskContext task = TaskContext.get();
    if (task != null) {
      task.addTaskCompletionListener((TaskCompletionListener) ctx -> close());
    }
    net = NetProvider.build(plan.definition());
    Map<String, Shape> inputs = net.inputShapes(Phase.TEST);
    Shape data = inputs.get(plan.dataBlob());
    if (data == null || data.rank() < 1) {
      throw new IllegalArgumentException(
          "The TEST-phase net has no input blob '"
              + plan.dataBlob()
              + "'; its inputs are "
              + inputs
              + "; set dataBlob");
    }
    batch = data.dim(0);
    size = Math.toIntExact(data.size() / batch);
    shapeText = "the net's input blob '" + plan.dataBlob() + "' " + data;
    otherInputs = new ArrayList<>(inputs.keySet());
    otherInputs.remove(plan.dataBlob());
    net.setWeights(weights);
  }

  private void runBatch() {
    if (net == null) {
      open();
    }
    List<Row> rows = new ArrayList<>(batch);
    float[] features = new float[batch * size];
    while (rows.size() < batch && input.hasNext()) {
      Row row = input.next();
      readFeatures(row, features, rows.size() * size);
      rows.add(row);
    }
    for (int r = rows.size(); r < batch; r++) {
      System.arraycopy(features, (rows.size() - 1) * size, features, r * size, size);
    }
    float[] values = forward(features);
    if (values.length % batch != 0) {
      throw new IllegalArgumentException(
          "Blob '"
              + plan.outputBlob()
              + "' has "
              + values.length
              + " values, not a multiple of the batch "
              + batch
              + "; choose an output blob with one row per example");
    }
    int width = values.length / batch;
    for (int r = 0; r < rows.size(); r++) {
      float[] out = new float[width];
      System.arraycopy(values, r * width, out, 0, width);
      ready.add(append(rows.get(r), out));
    }
  }

  private float[] forward(float[] features) {
    Map<String, NDArray> result =
        net.forward(
            blobs -> {
              blobs.get(plan.dataBlob()).copyFrom(features);
              for (String other : otherInputs) {
                blobs.get(other).fill(0f);
              }
            },
            List.of(plan.outputBlob()));
    try {
      return result.get(plan.outputBlob()).toArray();
    } finally {
      for (NDArray a : result.values()) {
        a.close();
      }
    }
  }

  private void readFeatures(Row row, float[] dest, int offset) {
    int i = plan.featuresIndex();
    if (row.isNullAt(i)) {
      throw new IllegalArgumentException(
          "Features column '" + plan.featuresCol() + "' has a null row");
    }
    if (plan.kind() == StageSupport.FeatureKind.VECTOR) {
      Vector v = row.getAs(i);
      if (v.size() != size) {
        throw StageSupport.sizeMismatch(plan.featuresCol(), size, v.size(), shapeText);
      }
      double[] d = v.toArray();
      for (int j = 0; j < size; j++) {
        dest[offset + j] = (float) d[j];
      }
    } else {
      List<Object> list = row.getList(i);
      if (list.size() != size) {
        throw StageSupport.sizeMismatch(plan.featuresCol(), size, list.size(), shapeText);
      }
      for (int j = 0; j < size; j++) {
        Object o = list.get(j);
        if (o == null) {
          throw new IllegalArgumentException(
              "Features column '" + plan.featuresCol() + "' has a null at index " + j);
        }
        dest[offset + j] = ((Number) o).floatValue();
      }
    }
  }

  private Row append(Row row, float[] out) {
    Output o = plan.output();
    List<Object> values = new ArrayList<>(row.length() + 3);
    for (int i = 0; i < row.length(); i++) {
      values.add(row.get(i));
    }
    if (o.classifier()) {
      double[] raw = new double[out.length];
      for (int j = 0; j < out.length; j++) {
        raw[j] = out[j];
      }
      if (o.raw()) {
        values.add(Vectors.dense(raw));
      }
      if (o.probability()) {
        values.add(Vectors.dense(softmax(raw)));
      }
      if (o.prediction()) {
        values.add((double) argmax(raw));
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

  /** Softmax in double, shifted by the maximum so that large scores do not overflow. */
  static double[] softmax(double[] scores) {
    double max = Double.NEGATIVE_INFINITY;
    for (double s : scores) {
      max = Math.max(max, s);
    }
    double[] p = new double[scores.length];
    double sum = 0;
    for (int j = 0; j < p.length; j++) {
      p[j] = Math.exp(scores[j] - max);
      sum += p[j];
    }
    for (int j = 0; j < p.length; j++) {
      p[j] /= sum;
    }
    return p;
  }

  static int argmax(double[] v) {
    int best = 0;
    for (int j = 1; j < v.length; j++) {
      if (v[j] > v[best]) {
        best = j;
      }
    }
    return best;
  }

  /** Closes the net; idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (net != null) {
      net.close();
    }
  }
}
