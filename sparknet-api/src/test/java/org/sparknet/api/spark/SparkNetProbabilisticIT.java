package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.ml.classification.OneVsRest;
import org.apache.spark.ml.classification.OneVsRestModel;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The classifier as one of Spark's probabilistic classifiers, on Fashion-MNIST rows with the
 * pure-Java softmax engine: {@code numClasses}, single-vector {@code predict}, {@code predictRaw}
 * and {@code predictProbability} (Spark's own code over the model's scores) against the batched
 * transform, {@code thresholds} in both, and {@code OneVsRest} over SparkNet binary classifiers.
 */
class SparkNetProbabilisticIT {
  private static Dataset<Row> train;
  private static Dataset<Row> test;
  private static SparkNetClassificationModel model;

  @BeforeAll
  static void fit() {
    train = StageFrames.frame(true, 1_000);
    test = StageFrames.frame(false, 320);
    model = StageFrames.classifier().setMaxRounds(3).setVerbose(false).fit(train);
  }

  /**
   * Broken on purpose: a transform that ignored thresholds predicted class 0 for 30 test rows with
   * thresholds as without them (Spark's single-vector predict, which applies them, moves more rows
   * to class 0).
   */
  @Test
  void singleVectorMethodsAgreeWithTheBatchedTransformWithAndWithoutThresholds() {
    assertEquals(10, model.numClasses());
    checkRows(model, 40);

    // Class 0 favoured: its probability counts fifty-fold.
    double[] t = {0.02, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    SparkNetClassificationModel favoured = model.copy(ParamMap.empty()).setThresholds(t);
    long zeros = favoured.transform(test).filter(functions.col("prediction").equalTo(0.0)).count();
    long before = model.transform(test).filter(functions.col("prediction").equalTo(0.0)).count();
    assertTrue(
        zeros > before, "thresholds move predictions to class 0: " + before + " -> " + zeros);
    checkRows(favoured, 40);

    SparkNetFitOptionsIT.assertMessage(
        () ->
            model
                .copy(new ParamMap().put(model.thresholds().w(new double[] {1, 1, 1})))
                .transform(test),
        "thresholds has 3 values but the net's output blob has 10 classes");
  }

  /**
   * Each row's prediction, scores and probabilities from transform and from the one-row methods.
   */
  private static void checkRows(SparkNetClassificationModel m, int n) {
    List<Row> rows = m.transform(test.limit(n)).collectAsList();
    for (Row r : rows) {
      Vector features = r.getAs("features");
      Vector raw = r.getAs("rawPrediction");
      Vector probability = r.getAs("probability");
      assertArrayEquals(raw.toArray(), m.predictRaw(features).toArray(), 1e-6);
      assertArrayEquals(probability.toArray(), m.predictProbability(features).toArray(), 1e-9);
      double sum = 0;
      for (double p : probability.toArray()) {
        sum += p;
      }
      assertEquals(1.0, sum, 1e-9);
      assertEquals(m.predict(features), r.<Double>getAs("prediction"), "row " + r.getAs("id"));
    }
  }

  /**
   * OneVsRest trains one SparkNet binary classifier per class and combines their scores. Broken on
   * purpose: a copy that dropped OneVsRest's extra params (its binary label column) trained on the
   * 0-2 labels and the fit failed with a SparkException.
   */
  @Test
  void oneVsRestOverSparkNetBinaryClassifiers() {
    Dataset<Row> three = train.filter(functions.col("label").lt(3));
    Dataset<Row> threeTest = test.filter(functions.col("label").lt(3));
    SparkNetClassifier binary =
        StageFrames.classifier(StageFrames.SOLVER.replace("classes=10", "classes=2"))
            .setMaxRounds(3)
            .setVerbose(false);
    OneVsRestModel ovr = new OneVsRest().setClassifier(binary).fit(three);
    assertEquals(3, ovr.models().length);
    assertEquals(2, ((SparkNetClassificationModel) ovr.models()[0]).numClasses());
    double accuracy =
        new MulticlassClassificationEvaluator()
            .setMetricName("accuracy")
            .evaluate(ovr.transform(threeTest));
    System.out.printf(
        "SparkNetProbabilisticIT: OneVsRest over 3 Fashion-MNIST classes: accuracy %.3f%n",
        accuracy);
    assertTrue(accuracy > 0.7, "3 classes, chance 0.33: " + accuracy);
  }
}
