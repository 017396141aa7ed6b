package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.DataFormats;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.spark.SparkNetClassificationModel;
import org.sparknet.api.spark.SparkNetClassifier;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.testing.CaffeData;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * Caffe's own databases through the CLI, written by Debian's python3-lmdb and python3-plyvel with
 * Datums encoded by hand ({@link CaffeData}), never by SparkNet: the same Fashion-MNIST images give
 * bit for bit the weights of the IDX files under {@code --deterministic}, from an LMDB, a LevelDB,
 * a PNG-encoded LMDB and an LMDB on a real HDFS (MiniDFSCluster) alike; Caffe's unchanged LeNet
 * solver trains without {@code --train} on the LMDBs its net names, from the working directory; bad
 * databases are exit 2 with one line naming the database and, where it applies, the record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaffeDatabasesIT {
  private static final int TRAIN = 1000;
  private static final int TEST = 200;

  private Path tmp;
  private Path idx;
  private Path solver;
  private MiniHdfs hdfs;

  @BeforeAll
  void writeData(@TempDir Path dir) throws Exception {
    tmp = dir;
    idx = tmp.resolve("idx");
    CliFixtures.fashionMnistSubset(idx, TRAIN, TEST);
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    for (String backend : List.of("lmdb", "leveldb")) {
      db(backend, "train", backend, "");
      db(backend, "t10k", backend, "");
    }
    db("lmdb", "train", "png", "png");
    hdfs = MiniHdfs.start(tmp.resolve("dfs"));
    hdfs.upload(tmp.resolve("lmdb"), "/lmdb");
  }

  @AfterAll
  void stopHdfs() {
    if (hdfs != null) {
      hdfs.close();
    }
  }

  /** Writes idx's {@code set} (train or t10k) into tmp/{@code dir}/{@code set} as a database. */
  private Path db(String backend, String set, String dir, String variant) throws Exception {
    Path out = tmp.resolve(dir).resolve(set);
    Files.createDirectories(out.getParent());
    CaffeData.fromIdx(
        backend,
        idx.resolve(set + "-images-idx3-ubyte"),
        idx.resolve(set + "-labels-idx1-ubyte"),
        out,
        variant);
    return out;
  }

  private Result train(String format, String trainData, String testData, String out) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                solver.toString(),
                "--format",
                format,
                "--train",
                trainData,
                "--test",
                testData,
                "--workers",
                "1",
                "--tau",
                "10",
                "--rounds",
                "2",
                "--deterministic",
                "--output",
                tmp.resolve(out).toString()));
    return CliFixtures.run(a.toArray(new String[0]));
  }

  private byte[] model(String out) throws IOException {
    return Files.readAllBytes(tmp.resolve(out).resolve("final.caffemodel"));
  }

  /**
   * One worker reads each database in key order, which is the IDX files' order, so every format
   * feeds the net the same batches. A reader that dropped the last record of each key range gave
   * other weights: "lmdb/train trains as the IDX files do ==> array contents differ at index
   * [124]".
   */
  @Test
  void everyDatabaseGivesTheWeightsThatIdxGives() throws Exception {
    Result fromIdx =
        train(
            "idx",
            idx.resolve("train-images-idx3-ubyte").toString(),
            idx.resolve("t10k-images-idx3-ubyte").toString(),
            "idx-run");
    assertEquals(0, fromIdx.exit(), fromIdx.toString());
    byte[] reference = model("idx-run");
    String[][] runs = {
      {"lmdb", "lmdb/train", "lmdb/t10k"},
      {"leveldb", "leveldb/train", "leveldb/t10k"},
      {"lmdb", "png/train", "lmdb/t10k"}
    };
    for (String[] run : runs) {
      String out = run[1].replace('/', '-');
      Result r = train(run[0], tmp.resolve(run[1]).toString(), tmp.resolve(run[2]).toString(), out);
      assertEquals(0, r.exit(), r.toString());
      // LevelDB keeps no count: only the LMDBs' is known before reading
      String count = run[0].equals("lmdb") ? "on 1,000 training" : "on leveldb training";
      assertTrue(r.out().contains(count), r.toString());
      assertArrayEquals(reference, model(out), run[1] + " trains as the IDX files do");
    }
  }

  /**
   * The executors read the LMDB's pages straight from HDFS (the driver only its meta and branch
   * pages).
   */
  @Test
  void anLmdbOnHdfsGivesTheWeightsOfTheLocalOne() throws Exception {
    Result local =
        train(
            "lmdb",
            tmp.resolve("lmdb/train").toString(),
            tmp.resolve("lmdb/t10k").toString(),
            "local-lmdb");
    assertEquals(0, local.exit(), local.toString());
    long before = MiniHdfs.clientBytesRead();
    Result remote = train("lmdb", hdfs.uri("/lmdb/train"), hdfs.uri("/lmdb/t10k"), "hdfs-lmdb");
    assertEquals(0, remote.exit(), remote.toString());
    assertTrue(
        MiniHdfs.clientBytesRead() - before >= TRAIN * 784L,
        "the records were read from HDFS: " + (MiniHdfs.clientBytesRead() - before) + " bytes");
    assertArrayEquals(model("local-lmdb"), model("hdfs-lmdb"));
  }

  /**
   * {@code caffe train --solver examples/mnist/lenet_solver.prototxt} from Caffe's root reads
   * examples/mnist/mnist_train_lmdb and mnist_test_lmdb, relative to the working directory; so does
   * SparkNet without --train and --test, in a JVM started there.
   */
  @Test
  void withoutTrainTheNetsOwnLmdbsAreRead() throws Exception {
    Path root = tmp.resolve("caffe");
    Path mnist = root.resolve("examples/mnist");
    copyTree(tmp.resolve("lmdb/train"), mnist.resolve("mnist_train_lmdb"));
    copyTree(tmp.resolve("lmdb/t10k"), mnist.resolve("mnist_test_lmdb"));
    Path log = tmp.resolve("own-sources.log");
    ProcessBuilder pb =
        CliFixtures.childJvm(
            log,
            "train",
            "--solver",
            "lenet_solver.prototxt",
            "--workers",
            "1",
            "--tau",
            "10",
            "--rounds",
            "1",
            "--output",
            "run");
    pb.directory(root.toFile());
    String out = CliFixtures.runToEnd(pb, log, 5, "train on the net's own LMDBs");
    assertTrue(out.contains("on 1,000 training / 200 test examples (lmdb"), out);
    assertTrue(out.contains("Final test: accuracy"), out);
    assertTrue(Files.exists(root.resolve("run/final.caffemodel")));
  }

  /**
   * The Java API and Spark ML: the LMDB opened by name as a DataFrame of features and labels, which
   * a SparkNetClassifier fits and scores; its rows are the IDX file's images and labels, in order.
   * A DataSource that read each range twice gave 2,000 rows.
   */
  @Test
  void anLmdbAsADataFrameFitsASparkNetClassifier() throws Exception {
    SparkSession spark =
        SparkSettings.apply(SparkSession.builder().master("local[2]")).getOrCreate();
    try {
      DataSource lmdb =
          DataFormats.named("lmdb").open(DataRequest.of(tmp.resolve("lmdb/train").toString()));
      Dataset<Row> train = lmdb.toDataFrame(spark, ReadPlan.of(2)).cache();
      assertEquals(TRAIN, train.count());
      byte[][] expected = CliFixtures.fashionMnistTrain(TRAIN);
      List<Row> rows = train.collectAsList();
      for (int i : new int[] {0, 1, TRAIN / 2, TRAIN - 1}) {
        List<Float> features = rows.get(i).getList(0);
        assertEquals(784, features.size());
        for (int j = 0; j < 784; j++) {
          assertEquals(expected[0][i * 784 + j] & 0xff, features.get(j), 0f, "row " + i);
        }
        assertEquals(expected[1][i], rows.get(i).getDouble(1), 0.0, "label of row " + i);
      }
      Dataset<Row> test =
          DataFormats.named("lmdb")
              .open(DataRequest.of(tmp.resolve("lmdb/t10k").toString()))
              .toDataFrame(spark, ReadPlan.of(2));
      SparkNetClassificationModel model =
          new SparkNetClassifier()
              .setSolverFile(solver.toString())
              .setTau(20)
              .setNumWorkers(2)
              .setMaxRounds(3)
              .setSeed(7)
              .fit(train);
      double acc =
          new MulticlassClassificationEvaluator()
              .setMetricName("accuracy")
              .evaluate(model.transform(test));
      assertTrue(acc > 0.5, "accuracy " + acc);
    } finally {
      spark.stop();
    }
  }

  /**
   * Caffe's MNIST auto-encoder (shrunk) chooses its test data by stage: test net #0 (test-on-train)
   * reads the training LMDB, test net #1 (test-on-test) the test LMDB; without --train and --test
   * each net reads what its own data layer names.
   */
  @Test
  void eachStagedTestNetReadsItsOwnLmdb() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("autoencoder"));
    Path net = dir.resolve("mnist_autoencoder_small.prototxt");
    CliFixtures.copyResource("/nets/mnist_autoencoder_small.prototxt", net);
    Files.writeString(
        net,
        Files.readString(net)
            .replace("examples/mnist/mnist_train_lmdb", tmp.resolve("lmdb/train").toString())
            .replace("examples/mnist/mnist_test_lmdb", tmp.resolve("lmdb/t10k").toString()));
    Path s = dir.resolve("mnist_autoencoder_solver_small.prototxt");
    CliFixtures.copyResource("/nets/mnist_autoencoder_solver_small.prototxt", s);
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            s.toString(),
            "--workers",
            "1",
            "--tau",
            "5",
            "--rounds",
            "1",
            "--output",
            dir.resolve("run").toString());
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("on 1,000 training / 1,000 + 200 test examples"), r.toString());
    assertTrue(r.out().contains("Test net #0 (test-on-train)"), r.toString());
    assertTrue(r.out().contains("Test net #1 (test-on-test)"), r.toString());
  }

  /**
   * export takes the example's shape from an LMDB's first Datum (--sample): the same ONNX bytes as
   * with --sample-shape 1,28,28. A build that ignored --sample was exit 2: "layer 'mnist' (Data)
   * reads its data from a database, which does not declare the shape of an example".
   */
  @Test
  void exportTakesTheShapeFromAnLmdbSample() throws Exception {
    Result r =
        train(
            "lmdb",
            tmp.resolve("lmdb/train").toString(),
            tmp.resolve("lmdb/t10k").toString(),
            "export-run");
    assertEquals(0, r.exit(), r.toString());
    String net = tmp.resolve("caffe/examples/mnist/lenet_train_test.prototxt").toString();
    String weights = tmp.resolve("export-run/final.caffemodel").toString();
    Path fromSample = tmp.resolve("from-sample.onnx");
    Path fromShape = tmp.resolve("from-shape.onnx");
    Result a =
        CliFixtures.run(
            "export",
            "--net",
            net,
            "--weights",
            weights,
            "--onnx",
            fromSample.toString(),
            "--sample",
            tmp.resolve("lmdb/t10k").toString());
    assertEquals(0, a.exit(), a.toString());
    Result b =
        CliFixtures.run(
            "export",
            "--net",
            net,
            "--weights",
            weights,
            "--onnx",
            fromShape.toString(),
            "--sample-shape",
            "1,28,28");
    assertEquals(0, b.exit(), b.toString());
    assertArrayEquals(Files.readAllBytes(fromShape), Files.readAllBytes(fromSample));
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.createDirectories(to);
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, to.resolve(f.getFileName()));
      }
    }
  }

  /**
   * Each is exit 2 with one line, before or while reading, and no model is written. A build without
   * the reader's shape check was stopped later, by the packing, with "Example.features has 756
   * floats in example 199 of partition 0 but blob 'data' [64, 1, 28, 28] expects 784", which names
   * no database or record.
   */
  @Test
  void badDatabasesAreExitTwoNamingTheDatabaseAndRecord() throws Exception {
    Path notDb = Files.createDirectories(tmp.resolve("bad/not-a-db"));
    Files.writeString(notDb.resolve("readme.txt"), "no data.mdb here");
    Path truncated = tmp.resolve("bad/truncated");
    copyTree(tmp.resolve("lmdb/train"), truncated);
    try (RandomAccessFile f = new RandomAccessFile(truncated.resolve("data.mdb").toFile(), "rw")) {
      f.setLength(f.length() / 3);
    }
    Path empty = tmp.resolve("bad/empty");
    CaffeData.emptyLmdb(empty);
    Path odd = db("lmdb", "t10k", "odd", "odd-size");
    Path undecodable = db("lmdb", "t10k", "undecodable", "undecodable");
    String[][] cases = {
      {"lmdb", notDb.toString(), "is not an LMDB"},
      {"lmdb", truncated.toString(), "truncated"},
      {"lmdb", tmp.resolve("leveldb/train").toString(), "leveldb"},
      {"leveldb", tmp.resolve("lmdb/train").toString(), "lmdb"},
      {"lmdb", empty.toString(), "holds no records"},
      {"lmdb", odd.toString(), "record '00000199'"},
      {"lmdb", undecodable.toString(), "record '00000199'"}
    };
    for (String[] c : cases) {
      String out = "bad-" + Path.of(c[1]).getFileName() + "-" + c[0];
      Result r = train(c[0], c[1], tmp.resolve("lmdb/t10k").toString(), out);
      assertEquals(2, r.exit(), Arrays.toString(c) + "\n" + r);
      String line = r.err().strip().lines().reduce((a, b) -> b).orElse("");
      assertTrue(line.contains(c[2]), "expected '" + c[2] + "' in: " + r.err());
      assertTrue(line.contains(Path.of(c[1]).getFileName().toString()), line);
      assertFalse(Files.exists(tmp.resolve(out).resolve("final.caffemodel")), out);
    }
  }
}
