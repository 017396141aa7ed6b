package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.ServiceLoader;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.Transformer;
import org.junit.jupiter.api.Test;

/**
 * What Spark Connect's ML handler sees of SparkNet (MLUtils.loadOperators): the classes that
 * ServiceLoader lists for Estimator and Transformer, which it does only for classes with a public
 * no-argument constructor. Without SparkNetClassificationModel's no-argument constructor the
 * listing fails: "ServiceConfigurationError: org.apache.spark.ml.Transformer:
 * org.sparknet.api.spark.SparkNetClassificationModel Unable to get public no-arg constructor" (as
 * does the Connect server's load of every model). SparkConnectMlIT (sparknet-apps) runs the stages
 * through a real Connect server.
 */
class ConnectRegistrationTest {

  @Test
  void serviceLoaderListsTheEstimatorsAndModels() {
    List<String> estimators = names(Estimator.class);
    assertTrue(estimators.contains(SparkNetClassifier.class.getName()), estimators.toString());
    assertTrue(estimators.contains(SparkNetEstimator.class.getName()), estimators.toString());
    List<String> transformers = names(Transformer.class);
    assertTrue(
        transformers.contains(SparkNetClassificationModel.class.getName()),
        transformers.toString());
    assertTrue(transformers.contains(SparkNetModel.class.getName()), transformers.toString());
  }

  @Test
  void theServersConstructorsBuildStagesWithTheirUid() throws Exception {
    // The server builds an estimator by its (String uid) constructor, then sets params by name.
    SparkNetClassifier c =
        SparkNetClassifier.class.getConstructor(String.class).newInstance("SparkNetClassifier_1");
    assertEquals("SparkNetClassifier_1", c.uid());
    c.set(c.getParam("tau"), 40);
    assertEquals(40, c.getTau());
    assertEquals(0, new SparkNetClassificationModel().weights().numLayers());
  }

  private static List<String> names(Class<?> service) {
    return ServiceLoader.load(service).stream().map(p -> p.type().getName()).toList();
  }
}
