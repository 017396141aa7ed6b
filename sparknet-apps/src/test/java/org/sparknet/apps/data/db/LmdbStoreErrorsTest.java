package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;

/**
 * Bad input fails at open (or at the record) with one line naming the URI: not an LMDB, a LevelDB
 * (python3-plyvel), a truncated or corrupted copy of a python3-lmdb LMDB, a named sub-database, a
 * dup-sort database (liblmdb through ctypes), a malformed Datum.
 */
class LmdbStoreErrorsTest {
  @TempDir static Path dir;
  private static Path cifar;

  @BeforeAll
  static void writeDatabases() throws Exception {
    cifar = CaffeDbs.write(dir, "cifar", "cifar_lmdb", 20);
  }

  private static String openFails(Path path) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> LmdbStore.open(StoragePath.of(path)));
    String m = e.getMessage();
    assertTrue(m.indexOf('\n') < 0, "one line: " + m);
    assertTrue(m.contains(StoragePath.of(path).toString()), "names the URI: " + m);
    return m;
  }

  @Test
  void missingPath() {
    assertTrue(openFails(dir.resolve("nothing_lmdb")).endsWith("does not exist"));
  }

  @Test
  void directoryWithoutDataMdb() throws IOException {
    Path d = Files.createDirectories(dir.resolve("images"));
    Files.write(d.resolve("a.png"), new byte[] {1});
    String m = openFails(d);
    assertTrue(m.contains("is not an LMDB: no data.mdb"), m);
  }

  /**
   * A LevelDB directory is named as one. Without that check: "... is not an LMDB: no data.mdb; give
   * the directory that Caffe's convert_imageset or convert_mnist_data wrote ...".
   */
  @Test
  void levelDbIsNamed() throws Exception {
    Path ldb = CaffeDbs.write(dir, "leveldb", "train_leveldb", 1);
    String m = openFails(ldb);
    assertTrue(
        m.contains("it looks like a LevelDB (CURRENT, MANIFEST-*); use --format leveldb"), m);
  }

  /**
   * A data.mdb cut short inside its records fails naming the first missing page and its offset.
   * Without the length check: "Cannot read page 20 of ...: End of file reached before reading
   * fully."
   */
  @Test
  void truncatedDataFile() throws Exception {
    Path copy = copyOf(cifar, "truncated_lmdb");
    long pages;
    try (RandomAccessFile f = new RandomAccessFile(copy.resolve("data.mdb").toFile(), "rw")) {
      pages = f.length() / 4096;
      f.setLength((pages - 3) * 4096);
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> {
              try (LmdbStore store = LmdbStore.open(StoragePath.of(copy))) {
                store.scan(KeyRange.ALL, (k, v) -> {});
              }
            });
    String m = e.getMessage();
    long missing = pages - 3;
    assertTrue(m.contains("data.mdb is truncated: page " + missing), m);
    assertTrue(m.contains("(bytes " + missing * 4096 + " to"), m);
  }

  /**
   * A data.mdb shorter than one meta page. Without that check the length check still caught it, as
   * "... is truncated: page 0 (bytes 0 to 151) lies beyond its end at 100 bytes".
   */
  @Test
  void dataFileShorterThanAMetaPage() throws Exception {
    Path copy = copyOf(cifar, "short_lmdb");
    try (RandomAccessFile f = new RandomAccessFile(copy.resolve("data.mdb").toFile(), "rw")) {
      f.setLength(100);
    }
    String m = openFails(copy);
    assertTrue(m.contains("too short for LMDB's meta page"), m);
  }

  /**
   * A copy whose meta page 0 has another magic. Without the magic check it opened as a sound LMDB
   * (and the text file below failed as "an LMDB of data format version 2021161080").
   */
  @Test
  void badMagic() throws Exception {
    Path copy = copyOf(cifar, "magic_lmdb");
    try (RandomAccessFile f = new RandomAccessFile(copy.resolve("data.mdb").toFile(), "rw")) {
      f.seek(16);
      f.write(new byte[] {1, 2, 3, 4});
    }
    String m = openFails(copy);
    assertTrue(
        m.contains("is not an LMDB: meta page 0 has magic 0x04030201 where LMDB writes 0xBEEFC0DE"),
        m);
  }

  /** A file that is not an LMDB at all, named directly. */
  @Test
  void otherFile() throws IOException {
    Path f = dir.resolve("notes.txt");
    Files.writeString(f, "x".repeat(9000));
    String m = openFails(f);
    assertTrue(m.contains("is not an LMDB: meta page 0 has magic 0x78787878"), m);
  }

  /**
   * A named sub-database (python3-lmdb, max_dbs). Without the node flag check it opened, and its
   * one record, the sub-database's descriptor, would have gone on as a Datum.
   */
  @Test
  void namedSubDatabaseRefused() throws Exception {
    String m = openFails(CaffeDbs.write(dir, "subdb", "named_lmdb", 1));
    assertTrue(m.contains("holds named sub-databases ('images' is one)"), m);
  }

  /**
   * A dup-sort main database (liblmdb through ctypes). Without the md_flags check the node check
   * still refused it, as "record '00000000' holds several values (a dup-sort database)".
   */
  @Test
  void dupSortDatabaseRefused() throws Exception {
    String m = openFails(CaffeDbs.write(dir, "dupsort", "dup_lmdb", 1));
    assertTrue(m.contains("is a dup-sort database"), m);
  }

  /**
   * A malformed Datum fails naming the LMDB and the record; its neighbours read fine. Without the
   * field length bound an ArrayIndexOutOfBoundsException escaped, naming nothing.
   */
  @Test
  void malformedDatumNamesTheRecord() throws Exception {
    Path bad = CaffeDbs.write(dir, "malformed", "bad_lmdb", 3);
    try (LmdbStore store = LmdbStore.open(StoragePath.of(bad))) {
      var recs = CaffeDbs.records(store, KeyRange.ALL);
      assertEquals(3, recs.size());
      Datum.parse(recs.get(0)[1], store.recordName(recs.get(0)[0]));
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> Datum.parse(recs.get(1)[1], store.recordName(recs.get(1)[0])));
      assertTrue(
          e.getMessage()
              .startsWith("LMDB " + StoragePath.of(bad) + ", record '00000001': not a Caffe Datum"),
          e.getMessage());
      assertTrue(e.getMessage().contains("claims 5000 bytes, but 10 remain"), e.getMessage());
    }
  }

  private static Path copyOf(Path lmdb, String name) throws IOException {
    Path copy = Files.createDirectories(dir.resolve(name));
    Files.copy(lmdb.resolve("data.mdb"), copy.resolve("data.mdb"));
    return copy;
  }
}
