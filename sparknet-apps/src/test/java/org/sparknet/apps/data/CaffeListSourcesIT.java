package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.MiniHdfs;
import org.sparknet.apps.testing.PythonScript;
import org.sparknet.testing.spark.LocalSpark;

/**
 * {@link Hdf5Source} and {@link ImageListSource} in Spark (local[2]), their lists and files on a
 * real HDFS (MiniDFSCluster) and locally: every partition count gives the examples that {@code
 * read} gives on the driver, in the same order. On HDFS the driver reads the HDF5 headers through
 * the stream and the executors copy each file to a local temporary file, which is gone afterwards.
 * A reader that kept its copies failed with "temporary copies are deleted ==> expected: <0> but
 * was: <14>" (11 tasks, three of which read from both files).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaffeListSourcesIT {
  private MiniHdfs hdfs;
  private Path local;

  @BeforeAll
  void start(@TempDir Path tmp) throws Exception {
    ImageListSourceTest.loadOpenCvOnce();
    local = tmp;
    hdfs = MiniHdfs.start(tmp.resolve("dfs"));
    Path fm = Path.of(FashionMnist.locate(null).dir().toUri());
    Path h5 = Files.createDirectories(tmp.resolve("h5"));
    PythonScript.run(
        "/caffe-data/write_hdf5.py",
        h5,
        fm.resolve("train-images-idx3-ubyte.gz").toString(),
        fm.resolve("train-labels-idx1-ubyte.gz").toString(),
        h5.toString());
    Files.writeString(
        h5.resolve("list.txt"), h5.resolve("part0.h5") + "\n" + h5.resolve("part1.h5"));
    Path imgs = Files.createDirectories(tmp.resolve("imgs"));
    PythonScript.run("/caffe-data/write_images.py", imgs, imgs.toString());
    hdfs.upload(h5, "/h5");
    hdfs.upload(imgs, "/imgs");
    // on HDFS: one file by its URI, one by its absolute path on the list's file system
    try (var out = hdfs.fs().create(hdfs.path("/h5/list.txt"), true)) {
      out.write((hdfs.uri("/h5/part0.h5") + "\n/h5/part1.h5\n").getBytes(StandardCharsets.UTF_8));
    }
    String lines = "colour/a 0.png 3\ncolour/b.png 1\ngrey/g0.png 0\ncolour/sub/c.png 7\n";
    Files.writeString(imgs.resolve("list.txt"), lines);
    try (var out = hdfs.fs().create(hdfs.path("/imgs/list.txt"), true)) {
      out.write(lines.getBytes(StandardCharsets.UTF_8));
    }
  }

  @AfterAll
  void stop() {
    if (hdfs != null) {
      hdfs.close();
    }
  }

  private static void assertSame(List<Example> want, List<Example> got, String what) {
    assertEquals(want.size(), got.size(), what);
    for (int i = 0; i < want.size(); i++) {
      assertEquals(want.get(i).label(), got.get(i).label(), what + " label " + i);
      assertArrayEquals(want.get(i).features(), got.get(i).features(), what + " example " + i);
    }
  }

  private static long tempCopies() throws IOException {
    try (Stream<Path> s = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
      return s.filter(p -> p.getFileName().toString().startsWith("sparknet-hdf5-")).count();
    }
  }

  @Test
  void hdf5OnHdfsAndLocallyReadsTheSameRowsInEveryPartitioning() throws Exception {
    JavaSparkContext sc = LocalSpark.context();
    Hdf5Source here = Hdf5Source.open(local.resolve("h5/list.txt"));
    List<Example> want = here.read(0, here.count(), 1f);
    long before = tempCopies();
    Hdf5Source remote =
        Hdf5Source.open(
            StoragePath.of(hdfs.uri("/h5/list.txt")), Hdf5Source.DATA, Hdf5Source.LABEL);
    assertEquals(500, remote.count());
    assertEquals(List.of(1, 28, 28), remote.sampleShape());
    for (int p : new int[] {1, 3, 7}) {
      assertSame(want, here.toRdd(sc, p, 1f).collect(), "local, " + p + " partitions");
      assertSame(want, remote.toRdd(sc, p, 1f).collect(), "HDFS, " + p + " partitions");
    }
    assertEquals(before, tempCopies(), "temporary copies are deleted");
  }

  @Test
  void imageListOnHdfsAndLocallyReadsTheSameImagesInEveryPartitioning() throws Exception {
    JavaSparkContext sc = LocalSpark.context();
    String root = local.resolve("imgs") + "/";
    ImageListSource here = ImageListSource.open(local.resolve("imgs/list.txt"), root, 3, 5, true);
    List<Example> want = here.read(0, here.count(), 1f, ImageTransform.NONE);
    ImageListSource remote =
        ImageListSource.open(
            StoragePath.of(hdfs.uri("/imgs/list.txt")), hdfs.uri("/imgs/"), 3, 5, true);
    for (int p : new int[] {1, 2, 4}) {
      assertSame(want, here.toRdd(sc, p, 1f).collect(), "local, " + p + " partitions");
      assertSame(want, remote.toRdd(sc, p, 1f).collect(), "HDFS, " + p + " partitions");
    }
    ImageListSource shuffled = remote.shuffled(5);
    assertSame(
        shuffled.read(0, 4, 1f, ImageTransform.NONE),
        shuffled.toRdd(sc, 3, 1f).collect(),
        "shuffled, 3 partitions");
  }
}
