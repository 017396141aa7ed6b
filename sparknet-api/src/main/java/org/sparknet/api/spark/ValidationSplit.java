package org.sparknet.api.spark;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.data.FeatureColumns;

/**
 * The rows a fit trains on and the rows it validates on after every round, from one of three
 * sources: a validation DataFrame, a column flagging validation rows, or a random fraction.
 *
 * @param train the rows to train on
 * @param validation the rows to validate on, or null when there are none
 */
record ValidationSplit(Dataset<Row> train, Dataset<Row> validation) {

  /**
   * @throws IllegalArgumentException when more than one source is set, or the validation column or
   *     DataFrame does not fit (named)
   */
  static ValidationSplit of(Dataset<Row> df, TrainingParams<?> p) {
    checkOneSource(p);
    Dataset<Row> other = p.getValidationData();
    if (other != null) {
      checkColumns(other.schema(), p, "the validation data");
      return new ValidationSplit(df, other);
    }
    String vc = p.getValidationCol();
    if (!vc.isEmpty()) {
      checkFlagColumn(df.schema(), vc);
      Column flagged = coalesce(col(vc).cast("boolean"), lit(false));
      return new ValidationSplit(df.filter(not(flagged)), df.filter(flagged));
    }
    double vf = p.getValidationFraction();
    if (vf > 0) {
      Dataset<Row>[] parts = df.randomSplit(new double[] {1 - vf, vf}, p.getSeed());
      return new ValidationSplit(parts[0], parts[1]);
    }
    return new ValidationSplit(df, null);
  }

  private static void checkOneSource(TrainingParams<?> p) {
    List<String> set = new ArrayList<>();
    if (p.getValidationData() != null) {
      set.add("setValidationData(...)");
    }
    if (!p.getValidationCol().isEmpty()) {
      set.add("validationCol '" + p.getValidationCol() + "'");
    }
    if (p.getValidationFraction() > 0) {
      set.add("validationFraction " + p.getValidationFraction());
    }
    if (set.size() > 1) {
      throw new IllegalArgumentException(
          "Stage "
              + p.uid()
              + " has more than one source of validation rows: "
              + String.join(", ", set)
              + "; keep one");
    }
  }

  /** Checks a validation column: boolean or integer (non-zero: a validation row). */
  static void checkFlagColumn(StructType schema, String vc) {
    if (!Arrays.asList(schema.fieldNames()).contains(vc)) {
      throw new IllegalArgumentException(
          "Validation column '"
              + vc
              + "' is not in the data (columns "
              + Arrays.toString(schema.fieldNames())
              + "); set validationCol to a boolean or integer column, or to \"\" for none");
    }
    DataType t = schema.apply(vc).dataType();
    if (!(t instanceof BooleanType) && !(t instanceof IntegralType)) {
      throw new IllegalArgumentException(
          "Validation column '"
              + vc
              + "' must be boolean or an integer (non-zero: a validation row) but is "
              + t.simpleString());
    }
  }

  private static void checkColumns(StructType schema, TrainingParams<?> p, String what) {
    try {
      StageSupport.checkFeatures(schema, p);
      FeatureColumns.checkLabel(schema, p.getLabelCol());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("In " + what + ": " + e.getMessage(), e);
    }
  }
}
