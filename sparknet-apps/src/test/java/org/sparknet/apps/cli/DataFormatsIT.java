package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.CifarDataset;
import org.sparknet.apps.data.CifarFile;
import org.sparknet.apps.data.ImageFolder;
import org.sparknet.apps.data.ImageTransform;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeNet;

/**
 * The loaders on a real local Spark (records read on the executors, per partition) and the image
 * and Parquet formats through the CLI with the CIFAR-10 quick net (batch 4-10 to stay fast): an
 * undecodable image fails naming the file or is skipped and counted; Parquet trains and predicts.
 * Data: fixtures written from Fashion-MNIST images.
 */
class DataFormatsIT {
  @TempDir Path tmp;

  /** Caffe's one-time 16 bytes, paid before the leak check's first snapshot. */
  @BeforeAll
  static void loadCaffeOnce(@TempDir Path dir) throws Exception {
    Path solver = CliFixtures.caffeLeNet(dir);
    CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42)).close();
  }

  @Test
  void loadersReadTheirRecordsOnTheExecutors() throws Exception {
    Path a = CliFixtures.cifarBatch(tmp.resolve("a.bin"), 0, 25, false);
    Path b = CliFixtures.cifarBatch(tmp.resolve("b.bin"), 25, 10, false);
    CifarDataset cifar = CifarDataset.open(List.of(a, b), CifarFile.Variant.CIFAR10, false);
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {4, 8}, 3, 20);
    Files.write(root.resolve("class_8/zz-broken.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    ImageFolder folder = ImageFolder.open(root);
    SparkSession spark = SparkSessions.local("local[2]", "loaders");
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      ImageTransform crop = new ImageTransform(28, true, true, 5);
      List<Example> viaSpark = cifar.toRdd(sc, 3, 0.5f, crop).collect();
      List<Example> direct = cifar.read(0, 35, 0.5f, crop);
      assertEquals(35, viaSpark.size());
      for (int i = 0; i < 35; i++) {
        assertEquals(3 * 28 * 28, viaSpark.get(i).features().length);
        assertArrayEquals(direct.get(i).features(), viaSpark.get(i).features(), "record " + i);
        assertEquals(direct.get(i).label(), viaSpark.get(i).label());
      }

      LongAccumulator skipped = sc.sc().longAccumulator("skipped");
      List<Example> imgs = folder.toRdd(sc, 2, 24, 24, 1f, ImageTransform.NONE, skipped).collect();
      assertEquals(6, imgs.size(), "7 files, one undecodable");
      assertEquals(1L, skipped.value());
      assertEquals(List.of(0f, 0f, 0f, 1f, 1f, 1f), imgs.stream().map(Example::label).toList());
      Exception e =
          assertThrows(
              Exception.class,
              () -> folder.toRdd(sc, 2, 24, 24, 1f, ImageTransform.NONE, null).collect());
      assertTrue(
          rootMessage(e)
              .startsWith(
                  "Cannot decode image " + StoragePath.of(root.resolve("class_8/zz-broken.png"))),
          rootMessage(e));
    } finally {
      spark.stop();
    }
  }

  @Test
  void anUndecodableImageFailsTrainingNamingItOrIsSkippedAndCounted() throws Exception {
    Path solver = CliFixtures.appSolver("cifar10", tmp.resolve("caffe"));
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {0, 1}, 4, 40);
    Path bad = root.resolve("class_1/broken.jpg");
    Files.write(bad, new byte[] {(byte) 0xff, (byte) 0xd8, 1, 2, 3});
    List<String> args =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--train",
                root.toString(),
                "--test",
                root.toString(),
                "--format",
                "images",
                "--image-size",
                "36,36",
                "--crop",
                "32",
                "--mirror",
                "true",
                "--mean-value",
                "50",
                "--batch-size",
                "4",
                "--workers",
                "1",
                "--tau",
                "2",
                "--rounds",
                "1",
                "--output",
                tmp.resolve("run").toString()));
    Result failed = CliFixtures.run(args.toArray(new String[0]));
    assertEquals(2, failed.exit(), failed.toString());
    assertTrue(
        failed.err().contains("Cannot decode image " + StoragePath.of(bad)), failed.toString());

    args.add("--skip-bad-images");
    Result r = CliFixtures.run(args.toArray(new String[0]));
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("(images, shape [3, 36, 36])"), r.toString());
    assertTrue(
        r.out().contains("1 undecodable image(s) in --train skipped")
            && r.out().contains("1 undecodable image(s) in --test skipped"),
        r.toString());
    assertTrue(r.out().contains("Final test: accuracy"), r.toString());

    // test: the same weights on the same folder give the same accuracy, with the skip reported
    Result t =
        CliFixtures.run(
            "test",
            "--solver",
            solver.toString(),
            "--weights",
            tmp.resolve("run/final.caffemodel").toString(),
            "--test",
            root.toString(),
            "--format",
            "images",
            "--image-size",
            "36,36",
            "--crop",
            "32",
            "--mean-value",
            "50",
            "--batch-size",
            "4",
            "--workers",
            "1",
            "--skip-bad-images");
    System.out.println(t);
    assertEquals(0, t.exit(), t.toString());
    assertTrue(t.out().contains("on 8 examples; 1 undecodable image(s) in --test skipped"));
    assertEquals(Cifar10QuickIT.lastAccuracy(r.out()), Cifar10QuickIT.lastAccuracy(t.out()), 1e-4);
  }

  @Test
  void parquetTrainsTestsAndPredicts() throws Exception {
    Path solver = CliFixtures.appSolver("cifar10", tmp.resolve("caffe"));
    Path cifar = CliFixtures.cifarBatch(tmp.resolve("c.bin"), 0, 60, false);
    List<Example> ex =
        CifarDataset.open(List.of(cifar), CifarFile.Variant.CIFAR10, false)
            .read(0, 60, 1f, ImageTransform.NONE);
    Path labelled = tmp.resolve("train.parquet");
    Path unlabelled = tmp.resolve("input.parquet");
    SparkSession spark = SparkSessions.local("local[2]", "write parquet");
    try {
      List<Row> rows = new ArrayList<>();
      for (Example e : ex) {
        List<Float> px = new ArrayList<>();
        for (float v : e.features()) {
          px.add(v);
        }
        rows.add(RowFactory.create(px, (int) e.label()));
      }
      StructType schema =
          new StructType()
              .add("pixels", DataTypes.createArrayType(DataTypes.FloatType, false), false)
              .add("y", DataTypes.IntegerType, false);
      Dataset<Row> df = spark.createDataFrame(rows, schema);
      df.write().parquet(labelled.toString());
      df.drop("y").limit(7).write().parquet(unlabelled.toString());
    } finally {
      spark.stop();
    }
    String[] common = {
      "--format",
      "parquet",
      "--features-col",
      "pixels",
      "--label-col",
      "y",
      "--sample-shape",
      "3,32,32",
      "--mean-value",
      "50",
      "--batch-size",
      "10"
    };
    Path out = tmp.resolve("run");
    List<String> train =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--train",
                labelled.toString(),
                "--test",
                labelled.toString(),
                "--workers",
                "2",
                "--tau",
                "2",
                "--rounds",
                "1",
                "--output",
                out.toString()));
    train.addAll(List.of(common));
    Result r = CliFixtures.run(train.toArray(new String[0]));
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("Final test: accuracy"), r.toString());

    List<String> test =
        new ArrayList<>(
            List.of(
                "test",
                "--solver",
                solver.toString(),
                "--weights",
                out.resolve("final.caffemodel").toString(),
                "--test",
                labelled.toString()));
    test.addAll(List.of(common));
    Result t = CliFixtures.run(test.toArray(new String[0]));
    System.out.println(t);
    assertEquals(0, t.exit(), t.toString());
    assertEquals(Cifar10QuickIT.lastAccuracy(r.out()), Cifar10QuickIT.lastAccuracy(t.out()), 1e-4);

    Path preds = tmp.resolve("preds");
    List<String> predict =
        new ArrayList<>(
            List.of(
                "predict",
                "--solver",
                solver.toString(),
                "--weights",
                out.resolve("final.caffemodel").toString(),
                "--input",
                unlabelled.toString(),
                "--output",
                preds.toString()));
    predict.addAll(List.of(common));
    Result p = CliFixtures.run(predict.toArray(new String[0]));
    System.out.println(p);
    assertEquals(0, p.exit(), p.toString());
    assertTrue(p.out().contains("Predicted 7 examples (blob 'ip2', no labels"), p.toString());
  }

  private static String rootMessage(Throwable t) {
    Throwable c = t;
    while (c.getCause() != null) {
      c = c.getCause();
    }
    return String.valueOf(c.getMessage());
  }
}
