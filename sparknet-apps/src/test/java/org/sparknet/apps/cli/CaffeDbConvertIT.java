package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.CaffeDbWriter;
import org.sparknet.apps.data.db.DatumShape;
import org.sparknet.apps.testing.CaffeData;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.apps.testing.PythonScript;

/**
 * {@code sparknet convert --to lmdb|leveldb}, read back by an independent reader: read_db.py (test
 * resources) opens the database with Debian's python3-lmdb or python3-plyvel and decodes each Datum
 * from the wire format by hand, and its dump is compared with the IDX files' own bytes and labels.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaffeDbConvertIT {
  private static final int TRAIN = 300;

  private Path tmp;
  private Path images;
  private byte[] pixels;
  private byte[] labels;
  private Path floats;
  private Path halfLabel;
  private Path pythonLmdb;
  private Path parquet;

  @BeforeAll
  void writeData(@TempDir Path dir) throws Exception {
    tmp = dir;
    Path idx = tmp.resolve("idx");
    CliFixtures.fashionMnistSubset(idx, TRAIN, 100);
    images = idx.resolve("train-images-idx3-ubyte");
    byte[] imageFile = Files.readAllBytes(images);
    byte[] labelFile = Files.readAllBytes(idx.resolve("train-labels-idx1-ubyte"));
    pixels = java.util.Arrays.copyOfRange(imageFile, 16, imageFile.length);
    labels = java.util.Arrays.copyOfRange(labelFile, 8, labelFile.length);
    floats = tmp.resolve("floats.parquet");
    halfLabel = tmp.resolve("half-label.parquet");
    pythonLmdb = tmp.resolve("python-lmdb");
    parquet = tmp.resolve("via.parquet");
    writeParquets();
    loadCaffeDb();
    CaffeData.fromIdx("lmdb", images, idx.resolve("train-labels-idx1-ubyte"), pythonLmdb, "");
    Result toParquet =
        convert(
            "--format",
            "lmdb",
            "--input",
            pythonLmdb.toString(),
            "--output",
            parquet.toString(),
            "--workers",
            "1");
    assertEquals(0, toParquet.exit(), toParquet.toString());
  }

  /**
   * Caffe's one-time native allocation on first use (16 bytes, seen by the leak check in whichever
   * test wrote the first database), paid before the leak check's snapshots.
   */
  private void loadCaffeDb() {
    StoragePath warm = StoragePath.of(tmp.resolve("warm-up-lmdb"));
    try (CaffeDbWriter w =
        CaffeDbWriter.create(
            CaffeDbWriter.Backend.LMDB, warm, new DatumShape(1, 1, 1), "warm-up")) {
      w.put(new float[] {0}, 0);
      w.finish();
    }
  }

  /** Two tiny Parquet inputs (written by Spark, not by convert), then Spark is stopped again. */
  private void writeParquets() {
    StructType schema =
        new StructType()
            .add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false)
            .add("label", DataTypes.DoubleType, false);
    SparkSession s = SparkSession.builder().master("local[1]").getOrCreate();
    try {
      List<Row> rows =
          List.of(
              RowFactory.create(new float[] {0, 1, 2, 3, 4, 255}, 3.0),
              RowFactory.create(new float[] {0.5f, 1, 256, -2, 0, 7}, 9.0));
      s.createDataFrame(rows, schema).coalesce(1).write().parquet(floats.toString());
      List<Row> half = List.of(RowFactory.create(new float[] {0, 1, 2, 3, 4, 5}, 0.5));
      s.createDataFrame(half, schema).coalesce(1).write().parquet(halfLabel.toString());
    } finally {
      s.stop();
    }
  }

  private static Result convert(String... args) {
    String[] a = new String[args.length + 1];
    a[0] = "convert";
    System.arraycopy(args, 0, a, 1, args.length);
    return CliFixtures.run(a);
  }

  /** read_db.py's dump of {@code db}: one line a record, in key order. */
  private List<String> dump(String backend, Path db) throws Exception {
    Path out = tmp.resolve(db.getFileName() + ".txt");
    PythonScript.run("/lmdb/read_db.py", tmp, backend, db.toString(), out.toString());
    return Files.readAllLines(out);
  }

  private List<String> idxLines() {
    HexFormat hex = HexFormat.of();
    return java.util.stream.IntStream.range(0, TRAIN)
        .mapToObj(
            i ->
                String.format(
                    "%08d 1 28 28 %d data %s",
                    i, labels[i], hex.formatHex(pixels, i * 784, (i + 1) * 784)))
        .toList();
  }

  /**
   * Three partitions of IDX images, collected to the driver, give the IDX file's records in order:
   * keys 00000000.., shape 1x28x28, the pixels as data bytes, the labels. A writer that skipped the
   * last commit failed with "lmdb ==> expected: <[00000000 1 28 28 9 data 0000...]> but was: <[]>"
   * (300 records are less than one commit); one that counted keys from 1 failed too.
   */
  @Test
  void idxToLmdbAndLevelDb() throws Exception {
    for (String backend : List.of("lmdb", "leveldb")) {
      Path db = tmp.resolve("idx-" + backend);
      Result r =
          convert(
              "--format",
              "idx",
              "--input",
              images.toString(),
              "--to",
              backend,
              "--output",
              db.toString(),
              "--workers",
              "3");
      assertEquals(0, r.exit(), r.toString());
      assertTrue(r.out().contains("Converted 300 examples"), r.out());
      assertEquals(idxLines(), dump(backend, db), backend);
      assertEquals(List.of(), leftovers(), backend);
    }
  }

  /**
   * An LMDB written by python3-lmdb, converted to Parquet (in {@link #writeData}, as SparkNet's
   * LMDB reader is not under test here) and back to an LMDB, dumps the same records. Not in the
   * same order: the Parquet source gave the records in another order than the file's (with one
   * worker too, while Spark read the file back in order), so records are compared without their
   * keys. A writer that skipped the last commit failed here (no records), and one that counted keys
   * from 1 ("expected: <[00000000, 00000001, ...").
   */
  @Test
  void lmdbToParquetToLmdb() throws Exception {
    Path back = tmp.resolve("back-lmdb");
    Result toLmdb =
        convert(
            "--format",
            "parquet",
            "--input",
            parquet.toString(),
            "--sample-shape",
            "1,28,28",
            "--to",
            "lmdb",
            "--output",
            back.toString());
    assertEquals(0, toLmdb.exit(), toLmdb.toString());
    assertEquals(unkeyed(dump("lmdb", pythonLmdb)), unkeyed(dump("lmdb", back)));
    assertEquals(unkeyed(idxLines()), unkeyed(dump("lmdb", back)));
    assertEquals(keys(idxLines()), keys(dump("lmdb", back)));
  }

  /**
   * An example with a value that is no byte is written as float_data, its neighbour of bytes as
   * data. A writer that wrote every example as data bytes failed with "but was: <[1 2 3 3 data
   * 0001020304ff, 1 2 3 9 data 000100fe0007]>".
   */
  @Test
  void nonBytesAsFloatData() throws Exception {
    Path db = tmp.resolve("floats-leveldb");
    Result r =
        convert(
            "--format",
            "parquet",
            "--input",
            floats.toString(),
            "--sample-shape",
            "1,2,3",
            "--to",
            "leveldb",
            "--output",
            db.toString());
    assertEquals(0, r.exit(), r.toString());
    List<String> lines = dump("leveldb", db);
    assertEquals(List.of("00000000", "00000001"), keys(lines));
    assertEquals(
        List.of("1 2 3 3 data 0001020304ff", "1 2 3 9 float_data 0.5,1.0,256.0,-2.0,0.0,7.0"),
        unkeyed(lines));
  }

  /**
   * Bad targets and labels exit 2 with one line naming --output before Caffe sees them (Caffe
   * aborts the JVM otherwise: a writer that let LMDB::Open mkdir an existing directory killed the
   * test JVM with "Check failed: mkdir(source.c_str(), 0744) == 0 (-1 vs. 0) mkdir ... failed"),
   * and nothing is left behind. A writer that cast the label to int wrote label 0 for 0.5 and
   * exited 0.
   */
  @Test
  void badTargetsAndLabels() throws Exception {
    Path exists = Files.createDirectories(tmp.resolve("exists-lmdb"));
    String[][] cases = {
      {images.toString(), "idx", exists.toString(), "already exists"},
      {images.toString(), "idx", tmp.resolve("no/such/lmdb").toString(), "is not a directory"},
      {images.toString(), "idx", "/proc/sparknet-convert-lmdb", "/proc"},
      {halfLabel.toString(), "parquet", tmp.resolve("half-lmdb").toString(), "label 0.5"}
    };
    for (String[] c : cases) {
      Result r =
          convert(
              "--format",
              c[1],
              "--input",
              c[0],
              "--sample-shape",
              "1,2,3",
              "--to",
              "lmdb",
              "--output",
              c[2]);
      assertEquals(2, r.exit(), String.join(" ", c) + "\n" + r);
      List<String> lines = r.err().strip().lines().toList();
      assertEquals(1, lines.size(), r.err());
      assertTrue(lines.get(0).contains("--output"), r.err());
      assertTrue(lines.get(0).contains(c[3]), "expected '" + c[3] + "' in " + r.err());
    }
    assertFalse(Files.exists(tmp.resolve("half-lmdb")));
    assertEquals(List.of(), leftovers());
  }

  /** The dump's records without their keys, sorted: what a database holds, whatever the order. */
  private static List<String> unkeyed(List<String> dump) {
    return dump.stream().map(l -> l.substring(l.indexOf(' ') + 1)).sorted().toList();
  }

  private static List<String> keys(List<String> dump) {
    return dump.stream().map(l -> l.substring(0, l.indexOf(' '))).toList();
  }

  /** Temporary databases convert left in tmp. */
  private List<Path> leftovers() throws IOException {
    try (Stream<Path> s = Files.list(tmp)) {
      return s.filter(p -> p.getFileName().toString().contains(".writing-")).toList();
    }
  }
}
