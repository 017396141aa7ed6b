package org.sparknet.api.spark;

import org.apache.spark.ml.param.Param;

/**
 * The output columns of {@link SparkNetEstimator} and {@link SparkNetModel}: any blob as an array
 * column (feature extraction), and optionally its first value as a double (regression).
 *
 * @param <S> the stage type, returned by the setters
 */
@SuppressWarnings("unchecked") // S is the stage itself: the setters' casts are safe
public interface OutputParams<S extends OutputParams<S>> extends SparkNetParams<S> {

  /** array<float> column of the output blob's values, default "output". */
  default Param<String> outputCol() {
    return stageParams().outputCol;
  }

  default String getOutputCol() {
    return (String) getOrDefault(outputCol());
  }

  default S setOutputCol(String value) {
    return (S) set(outputCol(), value);
  }
}
