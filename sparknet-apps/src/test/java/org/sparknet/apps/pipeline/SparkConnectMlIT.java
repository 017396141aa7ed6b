package org.sparknet.apps.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkEnv;
import org.apache.spark.connect.proto.ObjectRef;
import org.apache.spark.connect.proto.Relation;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.connect.service.SparkConnectService$;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.spark.SparkNetClassificationModel;
import org.sparknet.api.spark.SparkNetClassifier;
import org.sparknet.apps.data.FashionMnist;
import org.sparknet.apps.mnist.LeNet;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.testing.spark.LocalSpark;

/**
 * SparkNet from a Spark Connect client: a real Spark Connect server in this JVM (on the local
 * Spark, gRPC on a loopback port) and {@link ConnectMlClient}, which sends what PySpark's Connect
 * client sends, fit a SparkNetClassifier (LeNet, real Caffe, 2 workers) on Parquet Fashion-MNIST
 * rows, transform with the fitted model, save it and load it back, all on the server. The server
 * finds the classes through META-INF/services of sparknet-api. Broken on purpose: without the
 * classifier's line in META-INF/services/org.apache.spark.ml.Estimator the fit fails with
 * "[CONNECT_ML.UNSUPPORTED_EXCEPTION] ... Unsupported ML operator, found
 * org.sparknet.api.spark.SparkNetClassifier"; without the model's line in ...ml.Transformer the fit
 * and transform pass and the load fails with "Unsupported read for
 * org.sparknet.api.spark.SparkNetClassificationModel".
 */
class SparkConnectMlIT {
  private static final float SCALE = 1f / 256;
  private static final String CLASSIFIER = SparkNetClassifier.class.getName();
  private static final String MODEL = SparkNetClassificationModel.class.getName();

  @TempDir static Path dir;
  private static SparkSession spark;
  private static StructType trainSchema;
  private static StructType testSchema;
  private static ConnectMlClient client;

  @BeforeAll
  static void startServer() throws IOException {
    spark = LocalSpark.session();
    FashionMnist data = FashionMnist.locate(null);
    VectorAssembler features =
        new VectorAssembler().setInputCols(new String[] {"image"}).setOutputCol("features");
    Dataset<Row> train =
        features
            .transform(data.train().toDataFrame(spark, 0, 4_000, 2, SCALE))
            .select("features", "label");
    Dataset<Row> test =
        features
            .transform(data.test().toDataFrame(spark, 0, 1_000, 2, SCALE))
            .select("id", "features", "label");
    train.write().parquet(path("train"));
    test.write().parquet(path("test"));
    // Reads name the schema: inferring it runs a job whose results (StructTypes, ML attribute
    // metadata inside) are not among the classes the tests' Kryo registration requires.
    trainSchema = train.schema();
    testSchema = test.schema();
    // Caffe's first use in a JVM keeps a few bytes for good: not a leak of the first test.
    CaffeNet.create(LeNet.definition(7, 0.03)).close();

    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    SparkEnv.get().conf().set("spark.connect.grpc.binding.address", "127.0.0.1");
    SparkEnv.get().conf().set("spark.connect.grpc.binding.port", Integer.toString(port));
    SparkConnectService$.MODULE$.start(spark.sparkContext());
    client = new ConnectMlClient(SparkConnectService$.MODULE$.localPort());
  }

  @AfterAll
  static void stopServer() throws InterruptedException {
    if (client != null) {
      client.close();
    }
    SparkConnectService$.MODULE$.stop(
        SparkConnectService$.MODULE$.stop$default$1(),
        SparkConnectService$.MODULE$.stop$default$2());
  }

  @Test
  void fitTransformSaveAndLoadThroughSparkConnect() {
    NetDefinition lenet = LeNet.definition(7, 0.03);
    // What `SparkNetClassifier(solverText=..., ..., seed=7)` in PySpark sends: Python ints are
    // IntegerType literals (seed is a LongParam on the JVM side), the shape a list of ints.
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("solverText", lenet.solverText());
    params.put("netText", lenet.netText());
    params.put("inputShape", new int[] {1, 28, 28});
    params.put("tau", 40);
    params.put("numWorkers", 2);
    params.put("maxRounds", 3);
    params.put("seed", 7);
    ObjectRef fitted =
        client.fit(CLASSIFIER, params, ConnectMlClient.parquet(path("train"), trainSchema.json()));
    assertFalse(fitted.getId().isEmpty());

    Relation test = ConnectMlClient.parquet(path("test"), testSchema.json());
    assertEquals(
        List.of("id", "features", "label", "rawPrediction", "probability", "prediction"),
        client.columns(ConnectMlClient.transform(fitted, test)));
    client.writeParquet(ConnectMlClient.transform(fitted, test), path("pred"));
    Dataset<Row> pred = predictions("pred");
    assertEquals(1_000, pred.count());
    double accuracy = pred.filter("prediction = label").count() / 1_000.0;
    System.out.printf(
        "SparkConnectMlIT: 4k train / 1k test over Spark Connect, LeNet, 2 workers, tau 40,"
            + " 3 rounds: test accuracy %.4f%n",
        accuracy);
    assertTrue(accuracy >= 0.5, "test accuracy " + accuracy + " < 0.5");

    // Saved by the server; read back here, it holds the params the client set by name.
    client.save(fitted, path("model"));
    SparkNetClassificationModel saved = SparkNetClassificationModel.load(path("model"));
    assertEquals(40, saved.getTau());
    assertEquals(7L, saved.getSeed());
    assertArrayEquals(new int[] {1, 28, 28}, saved.getInputShape());
    assertEquals(3, saved.getHistory().size());

    // Loaded by the server from the saved files: the same predictions as the fitted model.
    ObjectRef loaded = client.load(MODEL, path("model"));
    client.writeParquet(ConnectMlClient.transform(loaded, test), path("pred-loaded"));
    Dataset<Row> again = predictions("pred-loaded");
    assertEquals(1_000, again.count());
    long alike =
        pred.select("id", "prediction")
            .join(again.select("id", "prediction").withColumnRenamed("prediction", "p2"), "id")
            .filter("prediction = p2")
            .count();
    assertEquals(1_000, alike, "rows predicted alike by the fitted and the loaded model");
  }

  /** The columns of written predictions the test checks (named: see the reads above). */
  private static Dataset<Row> predictions(String name) {
    return spark.read().schema("id BIGINT, label DOUBLE, prediction DOUBLE").parquet(path(name));
  }

  private static String path(String name) {
    return dir.resolve(name).toString();
  }
}
