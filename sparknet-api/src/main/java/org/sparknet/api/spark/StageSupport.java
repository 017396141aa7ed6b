package org.sparknet.api.spark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.data.InputBlobs;

/** The net definition and the schema checks that every SparkNet stage shares. */
final class StageSupport {
  private StageSupport() {}

  /**
   * The net definition the stage's params describe, with the learning-rate and batch-size overrides
   * applied.
   *
   * @throws IllegalArgumentException when the solver text is not set
   */
  static NetDefinition definition(SparkNetParams<?> p) {
    if (!p.isDefined(p.solverText())) {
      throw new IllegalArgumentException(
          "Stage "
              + p.uid()
              + " has no net: set solverText (and netText unless the solver holds"
              + " the net)");
    }
    String net = p.getNetText();
    int[] shape = p.getInputShape();
    List<Integer> sample = null;
    if (shape.length > 0) {
      sample = new ArrayList<>();
      for (int d : shape) {
        sample.add(d);
      }
    }
    NetDefinition d =
        new NetDefinition(
            p.getEngine(),
            p.getSolverText(),
            net == null || net.isBlank() ? null : net,
            sample,
            p.getSeed(),
            p.getDevice());
    NetProvider provider = NetProvider.forEngine(d.engine());
    if (p.getLearningRate() > 0) {
      d = provider.withBaseLearningRate(d, p.getLearningRate());
    }
    if (p.getBatchSize() > 0) {
      d = provider.withBatchSize(d, p.getBatchSize());
    }
    return d;
  }

  /**
   * {@link #definition(SparkNetParams)} with the shape of one example filled in when {@code
   * inputShape} is unset and the net does not declare it (Caffe's {@code Data}, {@code ImageData},
   * {@code HDF5Data} and {@code WindowData} layers): {@link #exampleShape} of the features' size.
   *
   * @param featureSize floats per example, asked only when needed; -1 when unknown
   * @throws IllegalArgumentException naming {@code inputShape} when the shape is needed and the
   *     size unknown
   */
  static NetDefinition definition(SparkNetParams<?> p, IntSupplier featureSize) {
    NetDefinition d = definition(p);
    if (!NetProvider.forEngine(d.engine()).needsSampleShape(d)) {
      return d;
    }
    int n = featureSize.getAsInt();
    if (n <= 0) {
      throw new IllegalArgumentException(
          "Stage "
              + p.uid()
              + ": the net's data layers do not declare the shape of an example and there are no"
              + " features to take it from; set inputShape, e.g. setInputShape(new int[] {1, 28,"
              + " 28}) for 28x28 grey images");
    }
    return new NetDefinition(
        d.engine(), d.solverText(), d.netText(), exampleShape(n), d.seed(), d.device());
  }

  /**
   * The shape of one example of {@code n} floats, as Caffe's Data layers would read it from a
   * {@code Datum} (channels, height, width): a square n = s*s is a grey image [1, s, s], n = 3*s*s
   * a colour image [3, s, s] (channels first, as Caffe stores them), anything else a vector [n, 1,
   * 1] (as Caffe's extract_features writes one).
   */
  static List<Integer> exampleShape(int n) {
    int s = (int) Math.round(Math.sqrt(n));
    if (s * s == n) {
      return List.of(1, s, s);
    }
    int c = (int) Math.round(Math.sqrt(n / 3.0));
    if (3 * c * c == n) {
      return List.of(3, c, c);
    }
    return List.of(n, 1, 1);
  }

  /**
   * Sets the stage's definition params (engine, texts, sample shape, seed, device) to {@code d}.
   */
  static void setDefinition(SparkNetParams<?> p, NetDefinition d) {
    int[] shape = new int[d.sampleShape() == null ? 0 : d.sampleShape().size()];
    for (int i = 0; i < shape.length; i++) {
      shape[i] = d.sampleShape().get(i);
    }
    p.setEngine(d.engine())
        .setSolverText(d.solverText())
        .setNetText(d.netText() == null ? "" : d.netText())
        .setInputShape(shape)
        .setSeed(d.seed())
        .setDevice(d.device());
  }

  /** The stage's input blobs (the continuation blob keeps its default name). */
  static InputBlobs blobs(SparkNetParams<?> p) {
    return new InputBlobs(p.getDataBlob(), p.getLabelBlob(), InputBlobs.DEFAULT.cont());
  }

  /** Checks the features column against {@code inputShape} when that is set. */
  static FeatureColumns.Kind checkFeatures(StructType schema, SparkNetParams<?> p) {
    int[] shape = p.getInputShape();
    long n = shape.length == 0 ? -1 : 1;
    for (int d : shape) {
      n *= d;
    }
    return FeatureColumns.checkFeatures(
        schema, p.getFeaturesCol(), Math.toIntExact(n), "inputShape " + Arrays.toString(shape));
  }

  /** What fitting reads: the features, the label and, when set, the validation flag column. */
  static void checkTrainingColumns(StructType schema, TrainingParams<?> p) {
    checkFeatures(schema, p);
    FeatureColumns.checkLabel(schema, p.getLabelCol());
    if (!p.getValidationCol().isEmpty()) {
      ValidationSplit.checkFlagColumn(schema, p.getValidationCol());
    }
  }

  /**
   * A column a stage appends.
   *
   * @param name the column's name; empty or null: the stage does not write it
   * @param param the param that names it, for the message when the name is taken
   */
  record OutputColumn(String name, DataType type, String param) {}

  /**
   * What transform makes of {@code schema}: the features checked, then {@code columns} appended in
   * order.
   */
  static StructType inferenceSchema(
      StructType schema, SparkNetParams<?> p, List<OutputColumn> columns) {
    checkFeatures(schema, p);
    return append(schema, columns);
  }

  /**
   * What fit makes of {@code schema}: the columns it reads checked, then the columns its model
   * appends.
   */
  static StructType trainingSchema(
      StructType schema, TrainingParams<?> p, List<OutputColumn> columns) {
    checkTrainingColumns(schema, p);
    return append(schema, columns);
  }

  private static StructType append(StructType schema, List<OutputColumn> columns) {
    StructType out = schema;
    for (OutputColumn c : columns) {
      out = append(out, c.name(), c.type(), c.param());
    }
    return out;
  }

  /** {@code schema} plus column {@code name} (none when the name is empty). */
  static StructType append(StructType schema, String name, DataType type, String param) {
    if (name == null || name.isEmpty()) {
      return schema;
    }
    if (Arrays.asList(schema.fieldNames()).contains(name)) {
      throw new IllegalArgumentException(
          "Output column '"
              + name
              + "' already exists in the input; set "
              + param
              + " to another name (or drop the column)");
    }
    return schema.add(name, type, false);
  }
}
