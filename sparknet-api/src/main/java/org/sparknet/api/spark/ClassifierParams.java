package org.sparknet.api.spark;

import org.apache.spark.ml.param.Param;

/**
 * The output columns of {@link SparkNetClassifier} and {@link SparkNetClassificationModel}, named
 * as Spark's classifiers name them so that {@code MulticlassClassificationEvaluator} reads them as
 * they are.
 *
 * @param <S> the stage type, returned by the setters
 */
@SuppressWarnings("unchecked") // S is the stage itself: the setters' casts are safe
public interface ClassifierParams<S extends ClassifierParams<S>> extends SparkNetParams<S> {

  /** Probability column (Vector, softmax of the scores), default "probability"; empty: none. */
  default Param<String> probabilityCol() {
    return stageParams().probabilityCol;
  }

  default String getProbabilityCol() {
    return (String) getOrDefault(probabilityCol());
  }

  default S setProbabilityCol(String value) {
    return (S) set(probabilityCol(), value);
  }

  /** Raw score column (Vector, the output blob), default "rawPrediction"; empty: none. */
  default Param<String> rawPredictionCol() {
    return stageParams().rawPredictionCol;
  }

  default String getRawPredictionCol() {
    return (String) getOrDefault(rawPredictionCol());
  }

  default S setRawPredictionCol(String value) {
    return (S) set(rawPredictionCol(), value);
  }
}
