package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.testnet.SoftmaxNetProvider;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * The stages with the pure-Java engine "java-softmax" (softmax regression) on Fashion-MNIST rows
 * with an {@code array<float>} features column: the engine-neutral path (no Caffe), its weights
 * file (SparkNet's own format) and the general model's outputs.
 */
class SparkNetStagesIT {
  private static final String SOLVER = "features=784\nclasses=10\nbatch=16\nlr=0.5\n";
  private static SparkSession spark;
  private static Dataset<Row> train;
  private static Dataset<Row> test;
  private static PipelineModel fitted;

  @BeforeAll
  static void fitOnce() {
    spark = LocalSpark.session();
    train = frame(FashionMnist.load(true, 1_000));
    test = frame(FashionMnist.load(false, 300));
    fitted = new Pipeline().setStages(new PipelineStage[] {classifier()}).fit(train);
  }

  private static Dataset<Row> frame(List<Example> examples) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < examples.size(); i++) {
      float[] f = examples.get(i).features();
      List<Float> values = new ArrayList<>(f.length);
      for (float v : f) {
        values.add(v);
      }
      rows.add(RowFactory.create((long) i, values, (int) examples.get(i).label()));
    }
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("pixels", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType);
    return spark.createDataFrame(rows, schema).repartition(2).cache();
  }

  private static SparkNetClassifier classifier() {
    return new SparkNetClassifier()
        .setEngine(SoftmaxNetProvider.ENGINE)
        .setSolverText(SOLVER)
        .setFeaturesCol("pixels")
        .setOutputBlob("prob")
        .setNumWorkers(2)
        .setTau(10)
        .setMaxRounds(5)
        .setSeed(4);
  }

  @Test
  void fitTransformSaveLoadWithoutCaffe(@TempDir Path dir) throws IOException {
    PipelineModel fitted = new Pipeline().setStages(new PipelineStage[] {classifier()}).fit(train);
    SparkNetClassificationModel model = (SparkNetClassificationModel) fitted.stages()[0];
    assertEquals(5, model.getHistory().size());
    Dataset<Row> predicted = fitted.transform(test);
    double accuracy =
        new MulticlassClassificationEvaluator().setMetricName("accuracy").evaluate(predicted);
    assertTrue(accuracy > 0.6, "softmax regression accuracy " + accuracy);

    String path = dir.resolve("pipeline").toString();
    fitted.save(path);
    assertThrows(IOException.class, () -> fitted.save(path));
    fitted.write().overwrite().save(path);
    assertTrue(
        Files.isRegularFile(
            Path.of(path)
                .resolve("stages")
                .resolve("0_" + model.uid())
                .resolve("weights/weights.bin")));
    PipelineModel loaded = PipelineModel.load(path);
    SparkNetClassificationModel back = (SparkNetClassificationModel) loaded.stages()[0];
    assertNull(back.weights().differenceFrom(model.weights(), 0, 0));
    assertEquals("prob", back.getOutputBlob());
    List<Row> a = predicted.orderBy("id").select("id", "prediction").collectAsList();
    List<Row> b = loaded.transform(test).orderBy("id").select("id", "prediction").collectAsList();
    assertEquals(a, b);
  }

  @Test
  void generalModelWritesTheBlobAsAnArray() {
    SparkNetClassificationModel trained = (SparkNetClassificationModel) fitted.stages()[0];
    SparkNetModel general =
        new SparkNetModel(trained.weights())
            .setEngine(SoftmaxNetProvider.ENGINE)
            .setSolverText(SOLVER)
            .setFeaturesCol("pixels")
            .setOutputBlob("prob")
            .setOutputCol("probs")
            .setPredictionCol("p0");
    List<Row> rows = general.transform(test.limit(21)).collectAsList();
    assertEquals(21, rows.size());
    for (Row r : rows) {
      List<Float> p = r.getList(r.fieldIndex("probs"));
      assertEquals(10, p.size());
      double sum = 0;
      for (float v : p) {
        sum += v;
      }
      assertEquals(1.0, sum, 1e-5);
      assertEquals(p.get(0), (float) r.getDouble(r.fieldIndex("p0")));
    }
    assertArrayEquals(
        new String[] {"id", "pixels", "label", "probs", "p0"}, rows.get(0).schema().fieldNames());
  }
}
