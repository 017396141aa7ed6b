package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.testing.OnnxRuntimeRun;

/**
 * Caffe files in the V1 format through the CLI, upgraded on load with one line to stderr per file:
 * Caffe's consolidated LeNet solver (its V1 net embedded as net_param) trains on Fashion-MNIST IDX,
 * a V1 deploy net (net-level input and input_dim) predicts and exports with the trained weights,
 * and ONNX Runtime's classes on the export agree with the predictions; a bad V1 file is exit 2 and
 * one line naming the file, line and field.
 *
 * <p>With CaffeFiles not upgrading (NetPlan still does), training ran but printed no upgrade line,
 * and the bad deploy net's error named "net definition" instead of the file: both tests failed.
 */
class OldCaffeFormatsIT {
  private static final String MNIST = "/caffe/examples/mnist/";
  private static final float SCALE = 0.00390625f;

  @TempDir static Path tmp;
  private static Path data;

  /** Pays Caffe's one-time JavaCPP memory before NativeLeakCheck's first snapshot. */
  @BeforeAll
  static void loadCaffeOnceAndData() throws Exception {
    Path lenet = CliFixtures.caffeLeNet(tmp.resolve("lenet"));
    CaffeNet.create(CaffeFiles.read(lenet, null).definition(List.of(1, 28, 28), 42)).close();
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 600, 100);
  }

  /**
   * Caffe's consolidated LeNet solver as Caffe ships it: a V1 net_param whose two TEST data layers
   * are chosen by stage, and two test nets (test_state test-on-test-set, then test-on-train-set).
   */
  static Path consolidatedSolver(Path dir) throws Exception {
    return CliFixtures.copyResource(
        MNIST + "lenet_consolidated_solver.prototxt",
        dir.resolve("lenet_consolidated_solver.prototxt"));
  }

  @Test
  void consolidatedV1SolverTrainsAndV1DeployPredictsAndExports() throws Exception {
    Path solver = consolidatedSolver(tmp);
    Path out = tmp.resolve("run");
    String testImages = data.resolve("t10k-images-idx3-ubyte").toString();
    Result train =
        CliFixtures.run(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--test",
            testImages,
            "--format",
            "idx",
            "--workers",
            "1",
            "--tau",
            "10",
            "--rounds",
            "3",
            "--output",
            out.toString());
    System.out.println(train);
    assertEquals(0, train.exit(), train.toString());
    assertEquals(
        List.of(
            "sparknet: solver "
                + "file:"
                + solver
                + " is in an older Caffe format (net_param: V1 layers); upgraded on load as Caffe"
                + " does"),
        upgradeLines(train.err()));
    // 30 steps of 64 from Caffe's seed reach 0.68 on these 100 test images; chance is 0.1. Both
    // staged test nets are built (each keeps its own TEST data layer) and tested on --test.
    Matcher accuracy =
        Pattern.compile(
                "Final test: Test net #0 \\(test-on-test-set\\): accuracy (\\d\\.\\d+).*; Test net"
                    + " #1 \\(test-on-train-set\\): accuracy")
            .matcher(train.out());
    assertTrue(accuracy.find(), train.out());
    assertTrue(Double.parseDouble(accuracy.group(1)) > 0.4, accuracy.group());
    Path model = out.resolve("final.caffemodel");
    assertTrue(Files.size(model) > 1_000_000, "LeNet's 431,080 floats in " + model);

    Path deploy =
        CliFixtures.copyResource(
            MNIST + "lenet_v1_deploy.prototxt", tmp.resolve("lenet_v1_deploy.prototxt"));
    String deployLine =
        "sparknet: net "
            + "file:"
            + deploy
            + " is in an older Caffe format (V1 layers, net-level inputs); upgraded on load as"
            + " Caffe does";
    Path parquet = tmp.resolve("predictions");
    Result predict =
        CliFixtures.run(
            "predict",
            "--net",
            deploy.toString(),
            "--weights",
            model.toString(),
            "--input",
            testImages,
            "--format",
            "idx",
            "--scale",
            Float.toString(SCALE),
            "--output",
            parquet.toString());
    System.out.println(predict);
    assertEquals(0, predict.exit(), predict.toString());
    assertTrue(predict.out().contains("blob 'ip2'"), predict.toString());
    assertEquals(List.of(deployLine), upgradeLines(predict.err()));

    Path onnx = tmp.resolve("lenet_v1.onnx");
    Result export =
        CliFixtures.run(
            "export",
            "--net",
            deploy.toString(),
            "--weights",
            model.toString(),
            "--onnx",
            onnx.toString());
    System.out.println(export);
    assertEquals(0, export.exit(), export.toString());
    assertEquals(List.of(deployLine), upgradeLines(export.err()));
    assertTrue(export.out().contains("inputs:  data [N, 1, 28, 28]"), export.out());
    assertArrayEquals(predictions(parquet), onnxClasses(onnx, 100));
  }

  @Test
  void badV1FileExitsTwoWithOneLineNamingFileLineAndField() throws Exception {
    Path deploy =
        CliFixtures.copyResource(MNIST + "lenet_v1_deploy.prototxt", tmp.resolve("bad.prototxt"));
    Files.writeString(deploy, Files.readString(deploy).replaceFirst("input_dim: 28\n", ""));
    Path weights = tmp.resolve("none.caffemodel");
    Files.write(weights, new byte[0]);
    Result export =
        CliFixtures.run(
            "export",
            "--net",
            deploy.toString(),
            "--weights",
            weights.toString(),
            "--onnx",
            tmp.resolve("bad.onnx").toString());
    assertEquals(2, export.exit(), export.toString());
    assertEquals(
        List.of(
            "sparknet: error: net "
                + "file:"
                + deploy
                + ", line 6, column 1: the net's inputs need 4 input_dim values (4 per input) but"
                + " the file has 3; give each input its full shape"),
        export.err().strip().lines().toList());
    Path solver = tmp.resolve("bad_solver.prototxt");
    Files.writeString(
        solver,
        "base_lr: 0.01\nlr_policy: \"fixed\"\nnet_param {\n  layers { name: \"c\" type: CONV }\n}\n");
    Result train =
        CliFixtures.run(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--format",
            "idx",
            "--tau",
            "1",
            "--rounds",
            "1",
            "--output",
            tmp.resolve("bad_run").toString());
    assertEquals(2, train.exit(), train.toString());
    List<String> lines = train.err().strip().lines().toList();
    assertEquals(1, lines.size(), train.err());
    assertTrue(
        lines
            .get(0)
            .startsWith(
                "sparknet: error: solver file:"
                    + solver
                    + " (net_param), V1 layer 'c', line 4, column 22: unknown V1 layer type CONV;"),
        lines.get(0));
  }

  private static List<String> upgradeLines(String err) {
    return err.lines().filter(l -> l.contains("older Caffe format")).toList();
  }

  /** The predicted classes of the first 100 rows, in index order. */
  private static int[] predictions(Path parquet) {
    SparkSession spark = SparkSessions.local("local[1]", "read predictions");
    try {
      List<Row> rows =
          spark.read().parquet(parquet.toString()).orderBy("index").limit(100).collectAsList();
      return rows.stream().mapToInt(r -> r.getInt(r.fieldIndex("prediction"))).toArray();
    } finally {
      spark.stop();
    }
  }

  /** ONNX Runtime's argmax of "prob" for the first {@code n} test images, scaled as predicted. */
  private static int[] onnxClasses(Path onnx, int n) throws Exception {
    float[] pixels = new float[n * 28 * 28];
    try (DataInputStream in =
        new DataInputStream(Files.newInputStream(data.resolve("t10k-images-idx3-ubyte")))) {
      in.skipNBytes(16);
      for (int k = 0; k < pixels.length; k++) {
        pixels[k] = in.readUnsignedByte() * SCALE;
      }
    }
    try (OnnxRuntimeRun ort = OnnxRuntimeRun.of(onnx)) {
      OnnxRuntimeRun.Output prob = ort.run("data", pixels, n, 1, 28, 28).get("prob");
      assertArrayEquals(new long[] {n, 10}, prob.shape());
      int[] classes = new int[n];
      for (int i = 0; i < n; i++) {
        float sum = 0;
        for (int c = 0; c < 10; c++) {
          float p = prob.values()[i * 10 + c];
          sum += p;
          if (p > prob.values()[i * 10 + classes[i]]) {
            classes[i] = c;
          }
        }
        assertEquals(1f, sum, 1e-4f, "softmax row " + i);
      }
      return classes;
    }
  }
}
