package org.sparknet.api.data;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Features and labels in DataFrame columns: the one place that checks a features column (a Spark ML
 * {@code Vector}, {@code array<float>} or {@code array<double>}) and a numeric label column, and
 * reads rows into float arrays, for the trainer, the Spark ML stages and the CLI's Parquet input.
 */
public final class FeatureColumns {
  private FeatureColumns() {}

  /** How a features column holds its values. */
  public enum Kind {
    VECTOR,
    ARRAY
  }

  /**
   * Checks the features column's type and, when both are known, its size (from the column's ML
   * attributes, as VectorAssembler writes them) against {@code expected}.
   *
   * @param expected floats per row, or -1 when not known
   * @param target what expects the size, for the message, e.g. "inputShape [1, 28, 28]"
   */
  public static Kind checkFeatures(StructType schema, String col, int expected, String target) {
    StructField f = field(schema, col, "Features");
    DataType t = f.dataType();
    Kind kind;
    if (t instanceof VectorUDT) {
      kind = Kind.VECTOR;
    } else if (t instanceof ArrayType a
        && (a.elementType().equals(DataTypes.FloatType)
            || a.elementType().equals(DataTypes.DoubleType))) {
      kind = Kind.ARRAY;
    } else {
      throw new IllegalArgumentException(
          "Features column '"
              + col
              + "' must be a Spark ML Vector, array<float> or array<double> but is "
              + t.simpleString());
    }
    if (expected > 0 && kind == Kind.VECTOR) {
      int found = AttributeGroup.fromStructField(f).size();
      if (found >= 0 && found != expected) {
        throw sizeMismatch(col, expected, found, target);
      }
    }
    return kind;
  }

  /**
   * Values per row of the features column: the size its ML attributes record (VectorAssembler
   * writes them), else the first row's, read with a one-row job; -1 when there is no row (or a null
   * first row) to tell.
   *
   * @throws IllegalArgumentException when the column is missing or of another type
   */
  public static int size(Dataset<Row> df, String col) {
    checkFeatures(df.schema(), col, -1, "the net");
    StructField f = field(df.schema(), col, "Features");
    if (f.dataType() instanceof VectorUDT) {
      int n = AttributeGroup.fromStructField(f).size();
      if (n >= 0) {
        return n;
      }
    }
    List<Row> first = df.select(col).limit(1).collectAsList();
    if (first.isEmpty() || first.get(0).isNullAt(0)) {
      return -1;
    }
    Object v = first.get(0).get(0);
    return v instanceof Vector vec ? vec.size() : first.get(0).getList(0).size();
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

  private static StructField field(StructType schema, String col, String what) {
    if (col == null || !Arrays.asList(schema.fieldNames()).contains(col)) {
      throw new IllegalArgumentException(
          what
              + " column '"
              + col
              + "' is not in the data; its columns are "
              + Arrays.toString(schema.fieldNames()));
    }
    return schema.apply(col);
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

  /**
   * The examples of {@code df}: features from {@code featuresCol}, labels from the numeric {@code
   * labelCol}, read on the executors.
   *
   * @throws IllegalArgumentException naming the column, the types accepted and the type found
   */
  public static JavaRDD<Example> examples(Dataset<Row> df, String featuresCol, String labelCol) {
    checkFeatures(df.schema(), featuresCol, -1, "the net");
    checkLabel(df.schema(), labelCol);
    Reader features = new Reader(featuresCol, 0, "the net");
    String lc = labelCol;
    return df.select(df.col(featuresCol), df.col(labelCol))
        .javaRDD()
        .map(
            row -> {
              if (row.isNullAt(1)) {
                throw new IllegalArgumentException("Label column '" + lc + "' has a null row");
              }
              return new Example(features.read(row), ((Number) row.get(1)).floatValue());
            });
  }

  /**
   * Reads a features column of rows (a Vector or a numeric array) into floats; a null row, a null
   * element or another size than the net's is an error naming the column.
   *
   * @param index the column's position in the rows
   * @param target what expects the size, for the message, e.g. "the net's input blob 'data' [..]"
   */
  public record Reader(String column, int index, String target)
      implements FeatureReader<Row>, Serializable {
    private static final long serialVersionUID = 1L;

    /** The row's features as a new array. */
    public float[] read(Row row) {
      checkNotNull(row);
      Object v = row.get(index);
      int n = v instanceof Vector vec ? vec.size() : row.getList(index).size();
      float[] out = new float[n];
      read(row, out, 0, n);
      return out;
    }

    @Override
    public void read(Row row, float[] dest, int offset, int size) {
      checkNotNull(row);
      if (row.get(index) instanceof Vector v) {
        checkSize(v.size(), size);
        double[] d = v.toArray();
        for (int j = 0; j < size; j++) {
          dest[offset + j] = (float) d[j];
        }
        return;
      }
      List<Object> list = row.getList(index);
      checkSize(list.size(), size);
      for (int j = 0; j < size; j++) {
        Object o = list.get(j);
        if (o == null) {
          throw new IllegalArgumentException(
              "Features column '" + column + "' has a null at index " + j);
        }
        dest[offset + j] = ((Number) o).floatValue();
      }
    }

    private void checkNotNull(Row row) {
      if (row.isNullAt(index)) {
        throw new IllegalArgumentException("Features column '" + column + "' has a null row");
      }
    }

    private void checkSize(int found, int size) {
      if (found != size) {
        throw sizeMismatch(column, size, found, target);
      }
    }
  }
}
