package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.autoencoder.Figures;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.apps.testing.MiniHdfs;
import org.sparknet.apps.testing.Pngs;

/**
 * Every command on a real HDFS: Hadoop's in-process MiniDFSCluster ({@link MiniHdfs}) on 127.0.0.1
 * with permissions on, Spark in local mode. Data, solver and net are copied to HDFS and nothing is
 * read from or written to local disk by the commands: LeNet trains from IDX files on HDFS and
 * checkpoints there, a second run resumes from that checkpoint and ends bit for bit where an
 * uninterrupted run ends; {@code test} and {@code predict} read the {@code .caffemodel} that {@code
 * train} wrote to HDFS; an image folder on HDFS trains; a missing file, a directory without
 * permission and a truncated IDX file each exit 2 naming the URI and leave no output behind; {@code
 * autoencoder} and {@code char-rnn} read their inputs from HDFS and write their outputs there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HdfsIT {
  private MiniHdfs hdfs;
  private FileSystem fs;

  @BeforeAll
  void startHdfs(@TempDir Path tmp) throws Exception {
    hdfs = MiniHdfs.start(tmp.resolve("dfs"));
    fs = hdfs.fs();
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 2000, 300);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    hdfs.upload(data, "/data");
    hdfs.upload(solver.getParent(), "/caffe");
    Path images = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {0, 1}, 6, 28);
    hdfs.upload(images, "/imgs");
  }

  @AfterAll
  void stopHdfs() {
    if (hdfs != null) {
      hdfs.close();
    }
  }

  private String uri(String path) {
    return hdfs.uri(path);
  }

  private byte[] bytes(String path) throws Exception {
    return hdfs.bytes(path);
  }

  private boolean exists(String path) throws Exception {
    return hdfs.exists(path);
  }

  private List<String> train(String out, int rounds, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "train",
                "--solver",
                uri("/caffe/lenet_solver.prototxt"),
                "--train",
                uri("/data/train-images-idx3-ubyte"),
                "--test",
                uri("/data/t10k-images-idx3-ubyte"),
                "--workers",
                "2",
                "--tau",
                "5",
                "--rounds",
                Integer.toString(rounds),
                "--deterministic",
                "--output",
                uri(out)));
    a.addAll(Arrays.asList(extra));
    return a;
  }

  /**
   * Mirrors SparkNetTrainerIT.checkpointAndResumeReachTheWeightsOfAnUninterruptedRun through the
   * CLI on HDFS. A broken build whose restore dropped the data positions (every partition starting
   * its epoch again) gave .caffemodel files that differ from byte 124 on.
   */
  @Test
  @Order(1)
  void trainsFromHdfsCheckpointsThereAndResumesExactly() throws Exception {
    Result whole = CliFixtures.run(train("/runs/whole", 2).toArray(String[]::new));
    assertEquals(0, whole.exit(), whole.toString());
    assertTrue(whole.out().contains("Weights written to " + uri("/runs/whole/final.caffemodel")));

    Result first =
        CliFixtures.run(train("/runs/a", 1, "--checkpoint", uri("/ckpt")).toArray(String[]::new));
    assertEquals(0, first.exit(), first.toString());
    assertTrue(exists("/ckpt/LATEST"), "the manifest is written last");
    for (FileStatus st : fs.listStatus(new org.apache.hadoop.fs.Path("/ckpt"))) {
      assertFalse(st.getPath().getName().endsWith(".tmp"), "left behind: " + st.getPath());
    }
    Result resumed =
        CliFixtures.run(train("/runs/b", 2, "--checkpoint", uri("/ckpt")).toArray(String[]::new));
    assertEquals(0, resumed.exit(), resumed.toString());
    assertTrue(resumed.out().contains("Resumed from round 1"), resumed.toString());
    assertArrayEquals(
        bytes("/runs/whole/final.caffemodel"),
        bytes("/runs/b/final.caffemodel"),
        "a run resumed from HDFS ends where the uninterrupted one does");
    assertTrue(bytes("/runs/whole/metrics.jsonl").length > 0, "metrics written to HDFS");
  }

  @Test
  @Order(2)
  void testAndPredictReadTheModelThatTrainWroteToHdfs() throws Exception {
    String model = uri("/runs/whole/final.caffemodel");
    Result test =
        CliFixtures.run(
            "test",
            "--solver",
            uri("/caffe/lenet_solver.prototxt"),
            "--weights",
            model,
            "--test",
            uri("/data/t10k-images-idx3-ubyte"),
            "--workers",
            "2");
    assertEquals(0, test.exit(), test.toString());
    assertTrue(test.out().contains("Test of " + model + " on 300 examples"), test.toString());
    Result predict =
        CliFixtures.run(
            "predict",
            "--solver",
            uri("/caffe/lenet_solver.prototxt"),
            "--weights",
            model,
            "--input",
            uri("/data/t10k-images-idx3-ubyte"),
            "--workers",
            "2",
            "--output",
            uri("/predictions"));
    assertEquals(0, predict.exit(), predict.toString());
    assertTrue(predict.out().contains("Predicted 300 examples"), predict.toString());
    assertTrue(exists("/predictions/_SUCCESS"), "Spark wrote the Parquet to HDFS");
  }

  @Test
  @Order(3)
  void anImageFolderOnHdfsTrains() throws Exception {
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            uri("/caffe/lenet_solver.prototxt"),
            "--train",
            uri("/imgs"),
            "--test",
            uri("/imgs"),
            "--format",
            "images",
            "--image-size",
            "28,28",
            "--batch-size",
            "4",
            "--workers",
            "1",
            "--tau",
            "2",
            "--rounds",
            "1",
            "--output",
            uri("/runs/images"));
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("12 training"), r.toString());
    assertTrue(exists("/runs/images/final.caffemodel"));
  }

  /**
   * Bad input on HDFS exits 2 naming the URI, before anything is written. Broken builds: with every
   * storage error read as "not there", the closed file was reported as "--train file
   * hdfs://.../secret/train-images-idx3-ubyte does not exist" (no "permission"); without the length
   * check on opening, the truncated file still exited 2 from the Spark task, but only after the
   * --output directory had been made.
   */
  @Test
  @Order(4)
  void missingUnreadableAndTruncatedFilesExit2NamingTheUri() throws Exception {
    Result missing =
        CliFixtures.run(
            replace(train("/runs/bad1", 1), "--train", uri("/data/none-images-idx3-ubyte")));
    assertEquals(2, missing.exit(), missing.toString());
    assertTrue(missing.err().contains(uri("/data/none-images-idx3-ubyte")), missing.toString());
    assertFalse(exists("/runs/bad1"));

    fs.mkdirs(new org.apache.hadoop.fs.Path("/secret"));
    fs.copyFromLocalFile(
        false,
        true,
        localCopy("/data/train-images-idx3-ubyte"),
        new org.apache.hadoop.fs.Path("/secret/train-images-idx3-ubyte"));
    fs.setOwner(new org.apache.hadoop.fs.Path("/secret"), "bob", "bob");
    fs.setPermission(new org.apache.hadoop.fs.Path("/secret"), new FsPermission((short) 0700));
    String[] closed =
        replace(train("/runs/bad2", 1), "--train", uri("/secret/train-images-idx3-ubyte"));
    Result denied =
        UserGroupInformation.createRemoteUser("alice")
            .doAs((PrivilegedExceptionAction<Result>) () -> CliFixtures.run(closed));
    assertEquals(2, denied.exit(), denied.toString());
    assertTrue(denied.err().contains(uri("/secret/train-images-idx3-ubyte")), denied.toString());
    assertTrue(denied.err().contains("permission"), denied.toString());
    assertFalse(exists("/runs/bad2"));

    fs.mkdirs(new org.apache.hadoop.fs.Path("/ckpt"));
    byte[] manifest = exists("/ckpt/LATEST") ? bytes("/ckpt/LATEST") : new byte[0];
    byte[] full = bytes("/data/train-images-idx3-ubyte");
    try (OutputStream out =
        fs.create(new org.apache.hadoop.fs.Path("/data/cut-images-idx3-ubyte"))) {
      out.write(full, 0, 16 + 784 * 5 + 100); // 5 records and part of the 6th of 2,000
    }
    fs.copyFromLocalFile(
        false,
        true,
        localCopy("/data/train-labels-idx1-ubyte"),
        new org.apache.hadoop.fs.Path("/data/cut-labels-idx1-ubyte"));
    Result cut =
        CliFixtures.run(
            replace(
                train("/runs/bad3", 1, "--checkpoint", uri("/ckpt")),
                "--train",
                uri("/data/cut-images-idx3-ubyte")));
    assertEquals(2, cut.exit(), cut.toString());
    assertTrue(cut.err().contains(uri("/data/cut-images-idx3-ubyte")), cut.toString());
    assertTrue(cut.err().contains("truncated"), cut.toString());
    assertFalse(exists("/runs/bad3"));
    assertArrayEquals(
        manifest,
        exists("/ckpt/LATEST") ? bytes("/ckpt/LATEST") : new byte[0],
        "the checkpoint is untouched");
  }

  /**
   * {@code autoencoder} reads Fashion-MNIST from HDFS and writes its RBM weights and both figures
   * there, each renamed into place when complete. A broken build that took --out as a java.nio Path
   * exited 0 having written "file:/.../sparknet-apps/hdfs:/127.0.0.1:PORT/ae/filters.png", a local
   * directory, and nothing to HDFS.
   */
  @Test
  @Order(5)
  void autoencoderWritesItsWeightsAndFiguresToHdfs() throws Exception {
    Result r =
        CliFixtures.run(
            "autoencoder",
            "--data",
            uri("/data"),
            "--train",
            "200",
            "--test",
            "100",
            "--layers",
            "16,2",
            "--workers",
            "2",
            "--batch",
            "50",
            "--tau",
            "2",
            "--rbm-epochs",
            "1",
            "--finetune-epochs",
            "1",
            "--out",
            uri("/ae"));
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("wrote " + uri("/ae/filters.png")), r.toString());
    int[] grid = Figures.filterGridSize(16, 10, 28); // the first RBM's 16 hidden units
    BufferedImage filters = Pngs.decode(bytes("/ae/filters.png"));
    assertEquals(grid[0], filters.getWidth());
    assertEquals(grid[1], filters.getHeight());
    BufferedImage codes = Pngs.decode(bytes("/ae/codes.png"));
    assertEquals(Figures.SCATTER_SIZE, codes.getWidth());
    assertEquals(Figures.SCATTER_SIZE, codes.getHeight());
    // An RBM of 784 x 16 weights (and biases) as 4-byte floats is more than 50 KB.
    assertTrue(bytes("/ae/rbm-1.weights").length > 784 * 16 * 4, "rbm-1.weights");
    assertTrue(bytes("/ae/rbm-2.weights").length > 16 * 2 * 4, "rbm-2.weights");
    assertNoTemporaryFiles("/ae");
  }

  /**
   * {@code char-rnn} reads its text from a directory on HDFS (searched recursively) and writes its
   * metrics file there. The text is two packages of this module's own Java sources, each in its own
   * directory under the one named, so the search has to recurse; together they hold more than the
   * 40,000 bytes read (each file HDFS writes is a round trip to the NameNode, so only these go
   * there). A broken build that took --text as a java.nio Path exited 2: "Text corpus
   * file:/.../hdfs:/127.0.0.1:PORT/text does not exist"; one whose listing did not recurse
   * (StoragePath.listFilesRecursively) exited 2: "Text corpus hdfs://127.0.0.1:PORT/text holds no
   * text: no non-empty file ending with '.java' under it".
   */
  @Test
  @Order(6)
  void charRnnReadsItsTextFromHdfsAndWritesMetricsThere() throws Exception {
    for (String pkg : new String[] {"autoencoder", "charrnn"}) {
      hdfs.upload(Path.of("src/main/java/org/sparknet/apps", pkg), "/text/" + pkg);
    }
    Result r =
        CliFixtures.run(
            "char-rnn",
            "--text",
            uri("/text"),
            "--ext",
            ".java",
            "--max-bytes",
            "40000",
            "--workers",
            "2",
            "--rounds",
            "2",
            "--tau",
            "2",
            "--unroll",
            "16",
            "--streams",
            "4",
            "--hidden",
            "16",
            "--sample",
            "20",
            "--metrics",
            uri("/charrnn/metrics.jsonl"));
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("40,000 bytes of .java text"), r.toString());
    assertTrue(r.out().contains("files under " + uri("/text")), r.toString());
    List<String> lines =
        new String(bytes("/charrnn/metrics.jsonl"), java.nio.charset.StandardCharsets.UTF_8)
            .lines()
            .toList();
    assertEquals(2, lines.size(), lines.toString());
    assertTrue(lines.get(1).contains("\"round\":2"), lines.get(1));
  }

  private void assertNoTemporaryFiles(String dir) throws Exception {
    for (FileStatus st : fs.listStatus(new org.apache.hadoop.fs.Path(dir))) {
      assertFalse(st.getPath().getName().endsWith(".tmp"), "left behind: " + st.getPath());
    }
  }

  private org.apache.hadoop.fs.Path localCopy(String hdfsPath) throws Exception {
    Path tmp = Files.createTempFile("hdfs-it", ".bin");
    tmp.toFile().deleteOnExit();
    Files.write(tmp, bytes(hdfsPath));
    return new org.apache.hadoop.fs.Path(tmp.toUri());
  }

  private static String[] replace(List<String> args, String option, String value) {
    List<String> a = new ArrayList<>(args);
    a.set(a.indexOf(option) + 1, value);
    return a.toArray(String[]::new);
  }
}
