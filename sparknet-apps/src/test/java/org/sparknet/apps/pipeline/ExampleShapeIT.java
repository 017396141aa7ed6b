package org.sparknet.apps.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.spark.SparkNetClassificationModel;
import org.sparknet.api.spark.SparkNetClassifier;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Caffe's unchanged LeNet files (examples/mnist: Data layers, which declare no example shape, and
 * {@code transform_param { scale: 0.00390625 }}) through the Spark ML stages with nothing but the
 * solver file set, on raw 0-255 Fashion-MNIST rows: the stage takes [1, 28, 28] from the 784-value
 * vectors and the fitted model keeps it; the stage feeds the values unscaled and the net's scale
 * applies, so the same weights in SparkNet's Input-layer LeNet (which scales nothing) give the same
 * scores on pixels / 256 computed here. An empty DataFrame without ML attributes has no size to
 * take: the error names the stage's param. Broken on purpose: without the shape taken from the
 * features, fit failed with "layer 'mnist' (Data) reads its data from a database, which does not
 * declare the shape of an example"; a features reader that divided by 256 gave 0.0013 where the
 * reference has 0.245 (row 0, index 0).
 */
class ExampleShapeIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  @Test
  void dataLayerNetsTakeTheShapeFromTheFeaturesAndTheirOwnScale() throws Exception {
    SparkSession spark = LocalSpark.session();
    FashionMnist fashion = FashionMnist.locate(null);
    Dataset<Row> raw =
        fashion.train().toDataFrame(spark, 0, 1_000, 2, 1f).withColumnRenamed("image", "features");
    SparkNetClassifier clf =
        new SparkNetClassifier()
            .setSolverText(Files.readString(ROOT.resolve("examples/mnist/lenet_solver.prototxt")))
            .setNetFile(ROOT.resolve("examples/mnist/lenet_train_test.prototxt").toString())
            .setNumWorkers(2)
            .setTau(5)
            .setMaxRounds(1)
            .setVerbose(false)
            .setSeed(5);
    assertEquals(0, clf.getInputShape().length);
    SparkNetClassificationModel model = clf.fit(raw);
    assertArrayEquals(new int[] {1, 28, 28}, model.getInputShape(), "the fitted model's shape");
    assertEquals(0, clf.getInputShape().length, "fit leaves the estimator as it was");
    String saved = dir.resolve("lenet").toString();
    model.save(saved);
    assertArrayEquals(
        new int[] {1, 28, 28}, SparkNetClassificationModel.load(saved).getInputShape());

    // The reference: the same weights in SparkNet's LeNet with Input layers, which scale nothing,
    // given pixels / 256 computed here, one vector at a time on the driver (no features column).
    SparkNetClassificationModel inputNet =
        SparkNetClassificationModel.fromCaffe(
            ROOT.resolve("sparknet-apps/src/main/resources/org/sparknet/apps/mnist/lenet.prototxt")
                .toString(),
            dir.resolve("lenet/weights/weights.caffemodel").toString());
    Dataset<Row> test = fashion.test().toDataFrame(spark, 0, 10, 1, 1f);
    List<Row> rows = model.setFeaturesCol("image").transform(test).orderBy("id").collectAsList();
    assertEquals(10, rows.size());
    for (int i = 0; i < rows.size(); i++) {
      double[] pixels = rows.get(i).<Vector>getAs("image").toArray();
      double[] scaled = new double[pixels.length];
      for (int j = 0; j < pixels.length; j++) {
        scaled[j] = pixels[j] / 256;
      }
      assertArrayEquals(
          inputNet.predictRaw(Vectors.dense(scaled)).toArray(),
          rows.get(i).<Vector>getAs("rawPrediction").toArray(),
          1e-4,
          "row " + i + ": the Data net on raw pixels against the Input net on pixels / 256");
    }

    // No rows and no ML attributes (the vectors above carry their size in them): no size to use.
    StructType schema =
        new StructType()
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.DoubleType);
    Dataset<Row> empty = spark.createDataFrame(List.<Row>of(), schema);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> clf.fit(empty));
    assertTrue(e.getMessage().contains("set inputShape"), e.getMessage());
    assertFalse(e.getMessage().contains("NetDefinition"), e.getMessage());
  }
}
