package org.sparknet.api.internal;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.sparknet.api.data.Example;

/** Turns the rows of a DataFrame into {@link Example}s, checking the column types first. */
public final class RowConversion {
  private RowConversion() {}

  private enum Kind {
    VECTOR,
    FLOAT_ARRAY,
    DOUBLE_ARRAY
  }

  /**
   * The examples of {@code df}: features from {@code featuresCol} (a Spark ML {@code Vector} or an
   * {@code array<float>} / {@code array<double>} column), labels from the numeric {@code labelCol}.
   *
   * @throws IllegalArgumentException naming the column, the types accepted and the type found
   */
  public static JavaRDD<Example> examples(Dataset<Row> df, String featuresCol, String labelCol) {
    StructField f = field(df, featuresCol);
    DataType t = f.dataType();
    Kind kind;
    if (t instanceof VectorUDT) {
      kind = Kind.VECTOR;
    } else if (t instanceof ArrayType a && a.elementType().equals(DataTypes.FloatType)) {
      kind = Kind.FLOAT_ARRAY;
    } else if (t instanceof ArrayType a && a.elementType().equals(DataTypes.DoubleType)) {
      kind = Kind.DOUBLE_ARRAY;
    } else {
      throw new IllegalArgumentException(
          "Features column '"
              + featuresCol
              + "' must be a Spark ML Vector, array<float> or array<double> but is "
              + t.simpleString());
    }
    StructField l = field(df, labelCol);
    if (!(l.dataType() instanceof NumericType)) {
      throw new IllegalArgumentException(
          "Label column '"
              + labelCol
              + "' must be numeric (int, long, float, double ...) but is "
              + l.dataType().simpleString());
    }
    String fc = featuresCol;
    String lc = labelCol;
    return df.select(df.col(featuresCol), df.col(labelCol))
        .javaRDD()
        .map(row -> toExample(row, kind, fc, lc));
  }

  private static StructField field(Dataset<Row> df, String col) {
    if (col == null || !Arrays.asList(df.schema().fieldNames()).contains(col)) {
      throw new IllegalArgumentException(
          "No column '" + col + "' in the data; its columns are " + Arrays.toString(df.columns()));
    }
    return df.schema().apply(col);
  }

  private static Example toExample(Row row, Kind kind, String featuresCol, String labelCol) {
    if (row.isNullAt(0)) {
      throw new IllegalArgumentException("Features column '" + featuresCol + "' has a null row");
    }
    if (row.isNullAt(1)) {
      throw new IllegalArgumentException("Label column '" + labelCol + "' has a null row");
    }
    float[] features;
    switch (kind) {
      case VECTOR -> {
        Vector v = row.getAs(0);
        double[] d = v.toArray();
        features = new float[d.length];
        for (int i = 0; i < d.length; i++) {
          features[i] = (float) d[i];
        }
      }
      default -> {
        List<Object> list = row.getList(0);
        features = new float[list.size()];
        for (int i = 0; i < features.length; i++) {
          Object o = list.get(i);
          if (o == null) {
            throw new IllegalArgumentException(
                "Features column '" + featuresCol + "' has a null at index " + i);
          }
          features[i] = ((Number) o).floatValue();
        }
      }
    }
    return new Example(features, ((Number) row.get(1)).floatValue());
  }
}
