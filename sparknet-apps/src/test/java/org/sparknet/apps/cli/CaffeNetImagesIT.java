package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeNet;

/**
 * Seed app 4, CaffeNet (AlexNet) on an image folder: the unchanged BVLC reference CaffeNet solver
 * and train_val net (its Data layers become Input layers fed 256x256 images that CaffeNet crops to
 * 227 and mirrors per batch, mean_file becomes --mean-value) trained by {@code train --format
 * images} on a tiny folder the test writes: 2 classes x 8 Fashion-MNIST images as PNG and JPEG,
 * resized to 256x256. CaffeNet on a CPU is slow, so the batch is 2 (--batch-size) and training is 2
 * solver steps on 1 worker: the test shows it runs end to end with a finite loss, not that it
 * learns.
 */
class CaffeNetImagesIT {
  private static final Pattern ROUND_LOSS = Pattern.compile("round +1/1 .* loss (\\S+)");

  @TempDir Path tmp;

  /** Caffe's one-time 16 bytes, paid before the leak check's first snapshot. */
  @BeforeAll
  static void loadCaffeOnce(@TempDir Path dir) throws Exception {
    Path solver = CliFixtures.caffeLeNet(dir);
    CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42)).close();
  }

  @Test
  void trainsTwoStepsOnAnImageFolderAndPredictsIntoParquet() throws Exception {
    Path train = CliFixtures.imageFolder(tmp.resolve("train"), new int[] {0, 7}, 8, 64);
    Path test = CliFixtures.imageFolder(tmp.resolve("test"), new int[] {0, 7}, 2, 64);
    Path solver = CliFixtures.appSolver("caffenet", tmp.resolve("caffe"));
    Path out = tmp.resolve("run");
    String[] data = {
      "--format",
      "images",
      "--image-size",
      "256,256",
      "--mean-value",
      "104,117,123",
      "--batch-size",
      "2"
    };
    Result r =
        CliFixtures.run(
            concat(
                new String[] {
                  "train",
                  "--solver",
                  solver.toString(),
                  "--train",
                  train.toString(),
                  "--test",
                  test.toString(),
                  "--workers",
                  "1",
                  "--tau",
                  "2",
                  "--rounds",
                  "1",
                  "--output",
                  out.toString()
                },
                data));
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("16 training / 4 test examples (images, shape [3, 256, 256])"));
    Matcher m = ROUND_LOSS.matcher(r.out());
    assertTrue(m.find(), r.out());
    double loss = Double.parseDouble(m.group(1));
    assertTrue(Double.isFinite(loss) && loss > 0, "loss " + loss);
    Path model = out.resolve("final.caffemodel");
    assertTrue(Files.size(model) > 60_965_224L * 4, "CaffeNet's 60,965,224 floats in " + model);

    // predict on a folder without class subfolders: unlabelled rows
    Path parquet = tmp.resolve("predictions");
    Result p =
        CliFixtures.run(
            concat(
                new String[] {
                  "predict",
                  "--solver",
                  solver.toString(),
                  "--weights",
                  model.toString(),
                  "--input",
                  test.resolve("class_7").toString(),
                  "--workers",
                  "1",
                  "--output",
                  parquet.toString()
                },
                data));
    System.out.println(p);
    assertEquals(0, p.exit(), p.toString());
    assertTrue(p.out().contains("Predicted 2 examples (blob 'fc8', no labels"), p.toString());
    SparkSession spark = SparkSessions.local("local[1]", "read predictions");
    try {
      Dataset<Row> df = spark.read().parquet(parquet.toString());
      assertEquals(
          List.of("index", "label", "prediction", "fc8"), List.of(df.schema().fieldNames()));
      List<Row> rows = df.orderBy("index").collectAsList();
      assertEquals(2, rows.size());
      for (Row row : rows) {
        assertTrue(row.isNullAt(1), "no label without class folders");
        assertEquals(1000, row.getList(3).size(), "fc8 scores the 1,000 ImageNet classes");
        int pred = row.getInt(2);
        assertTrue(pred >= 0 && pred < 1000);
      }
    } finally {
      spark.stop();
    }
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
