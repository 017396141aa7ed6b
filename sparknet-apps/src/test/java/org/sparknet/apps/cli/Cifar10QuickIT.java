package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

/**
 * Seed app 2, CIFAR-10 "quick": Caffe's unchanged cifar10_quick solver and net (its mean_file
 * written by the test from the training records; its batch of 100 replaced by --batch-size 20 to
 * keep the test short) trained with {@code --format cifar} on 2 workers of local[2]. No CIFAR data
 * is reachable here, so the data is a CIFAR-format fixture written from real Fashion-MNIST images
 * (1,000 training and 200 test records, centred in 32x32 and tinted).
 */
class Cifar10QuickIT {
  private static final Pattern ROUND_LOSS =
      Pattern.compile("round +\\d+/\\d+ .* loss (\\d+\\.\\d+)");
  private static final Pattern ACCURACY = Pattern.compile("accuracy (\\d+\\.\\d+)");

  @TempDir Path tmp;

  /** Caffe's one-time 16 bytes, paid before the leak check's first snapshot. */
  @BeforeAll
  static void loadCaffeOnce(@TempDir Path dir) throws Exception {
    Path solver = CliFixtures.caffeLeNet(dir);
    CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42)).close();
  }

  @Test
  void quickNetLearnsFromCifarBatchesThenTestsAndPredicts() throws Exception {
    Path train = CliFixtures.cifarBatch(tmp.resolve("data/data_batch_1.bin"), 0, 1000, false);
    Path test = CliFixtures.cifarBatch(tmp.resolve("data/test_batch.bin"), 1000, 200, false);
    Path solver = CliFixtures.appSolver("cifar10", tmp.resolve("caffe"));
    // the net's mean_file, examples/cifar10/mean.binaryproto beside the solver: the per-pixel mean
    // of the training records, as Caffe's compute_image_mean writes it
    float[] mean = new float[3072];
    for (var e :
        org.sparknet.apps.data.CifarDataset.open(
                List.of(train), org.sparknet.apps.data.CifarFile.Variant.CIFAR10, false)
            .read(0, 1000, 1f, org.sparknet.apps.data.ImageTransform.NONE)) {
      for (int i = 0; i < 3072; i++) {
        mean[i] += e.features()[i] / 1000f;
      }
    }
    CliFixtures.meanFile(tmp.resolve("caffe/examples/cifar10/mean.binaryproto"), 3, 32, 32, mean);
    Path out = tmp.resolve("run");
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            train.toString(),
            "--test",
            test.toString(),
            "--format",
            "cifar",
            "--batch-size",
            "20",
            "--workers",
            "2",
            "--tau",
            "10",
            "--rounds",
            "4",
            "--display",
            "1", // a line every round (the solver's display: 100 would print only the last)
            "--output",
            out.toString());
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("shape [3, 32, 32]"), r.toString());
    List<Double> losses = new ArrayList<>();
    Matcher m = ROUND_LOSS.matcher(r.out());
    while (m.find()) {
      losses.add(Double.parseDouble(m.group(1)));
    }
    assertEquals(4, losses.size(), r.out());
    assertTrue(
        losses.get(3) < losses.get(0) - 0.1,
        "the training loss falls from round 1 to round 4: " + losses);
    double accuracy = lastAccuracy(r.out());
    // The real build gives 0.56 (the README's figure); training labels shuffled (ShardFeeder) gave
    // 0.085 and a flat loss. Workers never given the averaged weights (Worker.train) gave 0.57:
    // four rounds cannot tell averaging from independent workers.
    assertTrue(accuracy > 0.45, "accuracy on 200 held-out records, chance 0.1: " + accuracy);

    Path model = out.resolve("final.caffemodel");
    Result t =
        CliFixtures.run(
            "test",
            "--solver",
            solver.toString(),
            "--weights",
            model.toString(),
            "--test",
            test.toString(),
            "--format",
            "cifar",
            "--batch-size",
            "20");
    System.out.println(t);
    assertEquals(0, t.exit(), t.toString());
    assertEquals(accuracy, lastAccuracy(t.out()), 1e-4, "the same weights on the same data");

    Path parquet = tmp.resolve("predictions");
    Result p =
        CliFixtures.run(
            "predict",
            "--solver",
            solver.toString(),
            "--weights",
            model.toString(),
            "--input",
            test.toString(),
            "--format",
            "cifar",
            "--batch-size",
            "20",
            "--output",
            parquet.toString());
    System.out.println(p);
    assertEquals(0, p.exit(), p.toString());
    assertTrue(p.out().contains("Predicted 200 examples (blob 'ip2', with labels"), p.toString());
    SparkSession spark = SparkSessions.local("local[1]", "read predictions");
    try {
      List<Row> rows = spark.read().parquet(parquet.toString()).orderBy("index").collectAsList();
      assertEquals(200, rows.size());
      byte[][] fm = CliFixtures.fashionMnistTrain(1200);
      int correct = 0;
      for (int i = 0; i < 200; i++) {
        assertEquals(i, rows.get(i).getLong(0));
        assertEquals(fm[1][1000 + i] & 0xff, rows.get(i).getInt(1), "label of record " + i);
        correct += rows.get(i).getInt(1) == rows.get(i).getInt(2) ? 1 : 0;
      }
      assertEquals(accuracy, correct / 200.0, 1.0 / 200 + 1e-6);
    } finally {
      spark.stop();
    }
    assertTrue(Files.size(model) > 300_000, "the quick net's 145,578 floats");
  }

  static double lastAccuracy(String out) {
    Matcher m = ACCURACY.matcher(out);
    double a = Double.NaN;
    while (m.find()) {
      a = Double.parseDouble(m.group(1));
    }
    assertTrue(!Double.isNaN(a), "no accuracy printed: " + out);
    return a;
  }
}
