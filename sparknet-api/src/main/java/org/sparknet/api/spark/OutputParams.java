package org.sparknet.api.spark;

import org.apache.spark.ml.param.Param;

/**
 * The output columns of {@link SparkNetEstimator} and {@link SparkNetModel}: any blob as an array
 * column (feature extraction), and optionally its first value as a double (regression).
 *
 * @param <S> the stage type, returned by the setters
 */
public interface OutputParams<S extends OutputParams<S>> extends SparkNetParams<S> {

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  /** array<float> column of the output blob's values, default "output". */
  default Param<String> outputCol() {
    return stageParams().outputCol;
  }

  default String getOutputCol() {
    return (String) getOrDefault(outputCol());
  }

  default S setOutputCol(String value) {
    set(outputCol(), value);
    return self();
  }

  /** Optional double column with the blob's first value (regression); empty (default): none. */
  default Param<String> predictionCol() {
    return stageParams().predictionCol;
  }

  default String getPredictionCol() {
    return (String) getOrDefault(predictionCol());
  }

  default S setPredictionCol(String value) {
    set(predictionCol(), value);
    return self();
  }
}
