package org.sparknet.api.spark.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.spark.SparkNetParams;

/** Definitions and schema checks shared by the SparkNet stages. */
public final class StageSupport {
  private StageSupport() {}

  /** How a features column holds its values. */
  public enum FeatureKind {
    VECTOR,
    ARRAY
  }

  /**
   * The net definition the stage's params describe, with the batch size override applied.
   *
   * @throws IllegalArgumentException when the solver text is not set
   */
  public static NetDefinition definition(SparkNetParams<?> p) {
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
    if (p.getLearningRate() > 0) {
      d = NetProvider.forEngine(d.engine()).withBaseLearningRate(d, p.getLearningRate());
    }
    if (p.getBatchSize() > 0) {
      d = NetProvider.forEngine(d.engine()).withBatchSize(d, p.getBatchSize());
    }
    return d;
  }

  /** Floats per example that {@code inputShape} implies, or -1 when it is not set. */
  public static int expectedFeatures(SparkNetParams<?> p) {
    int[] shape = p.getInputShape();
    if (shape.length == 0) {
      return -1;
    }
    long n = 1;
    for (int d : shape) {
      n *= d;
    }
    return Math.toIntExact(n);
  }

  /**
   * Checks the features column's type and, when both are known, its size (from the column's ML
   * attributes, as VectorAssembler writes them) against {@code expected}.
   *
   * @param target what expects the size, for the message, e.g. "inputShape [1, 28, 28]"
   */
  public static FeatureKind checkFeatures(
      StructType schema, String col, int expected, String target) {
    StructField f = field(schema, col, "Features");
    DataType t = f.dataType();
    FeatureKind kind;
    if (t instanceof VectorUDT) {
      kind = FeatureKind.VECTOR;
    } else if (t instanceof ArrayType a
        && (a.elementType().equals(DataTypes.FloatType)
            || a.elementType().equals(DataTypes.DoubleType))) {
      kind = FeatureKind.ARRAY;
    } else {
      throw new IllegalArgumentException(
          "Features column '"
              + col
              + "' must be a Spark ML Vector, array<float> or array<double> but is "
              + t.simpleString());
    }
    if (expected > 0 && kind == FeatureKind.VECTOR) {
      int found = AttributeGroup.fromStructField(f).size();
      if (found >= 0 && found != expected) {
        throw sizeMismatch(col, expected, found, target);
      }
    }
    return kind;
  }

  /** The error for a features column of the wrong size: column, expected and found size. */
  public static IllegalArgumentException sizeMismatch(
      String col, int expected, int found, String target) {
    return new IllegalArgumentException(
        "Features column '"
            + col
            + "' has "
            + found
            + " values a row but "
            + target
            + " expects "
            + expected
            + "; fix the column (for example VectorAssembler's inputCols) or the net's input shape"
            + " (inputShape or the net's input layer)");
  }

  /** Checks that the label column exists and is numeric. */
  public static void checkLabel(StructType schema, String col) {
    StructField f = field(schema, col, "Label");
    if (!(f.dataType() instanceof NumericType)) {
      throw new IllegalArgumentException(
          "Label column '"
              + col
              + "' must be numeric (int, long, float, double ...) but is "
              + f.dataType().simpleString());
    }
  }

  /** {@code schema} plus column {@code name} (none when the name is empty). */
  public static StructType append(StructType schema, String name, DataType type, String param) {
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

  private static StructField field(StructType schema, String col, String what) {
    if (!Arrays.asList(schema.fieldNames()).contains(col)) {
      throw new IllegalArgumentException(
          what
              + " column '"
              + col
              + "' is not in the data; its columns are "
              + Arrays.toString(schema.fieldNames()));
    }
    return schema.apply(col);
  }
}
