package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.CliFixtures;

/**
 * LMDBs written by python3-lmdb (lmdb/write_lmdbs.py) read back record for record: Fashion-MNIST as
 * convert_mnist_data writes it, 3x32x32 records on overflow pages, float_data records, and a tree
 * of depth 3 split and scanned across its branch levels. What each test caught when the reader was
 * broken on purpose is written in its comment.
 */
class LmdbStoreTest {
  private static final int MNIST = 300;
  private static final int MANY = 20_000;

  @TempDir static Path dir;
  private static Path mnist;
  private static Path cifar;
  private static Path floats;
  private static Path many;
  private static Path empty;

  @BeforeAll
  static void writeDatabases() throws Exception {
    mnist = CaffeDbs.write(dir, "mnist", "mnist_lmdb", MNIST);
    cifar = CaffeDbs.write(dir, "cifar", "cifar_lmdb", 20);
    floats = CaffeDbs.write(dir, "floats", "floats_lmdb", 10);
    many = CaffeDbs.write(dir, "many", "many_lmdb", MANY);
    empty = CaffeDbs.write(dir, "empty", "empty_lmdb", 0);
  }

  /**
   * Every Fashion-MNIST record comes back with convert_mnist_data's key, the IDX file's pixels
   * (read by IdxFile, not through the LMDB) and label. A reader that started each leaf after the
   * first at node 1 read 226 of the 300 records; one that took the meta page with the lower txnid
   * (python3-lmdb's first commit leaves page 0 at txnid 0) found none.
   */
  @Test
  void readsFashionMnistAsConvertMnistDataWroteIt() {
    byte[][] idx = CliFixtures.fashionMnistTrain(MNIST);
    try (LmdbStore store = LmdbStore.open(StoragePath.of(mnist))) {
      assertEquals(MNIST, store.count());
      assertEquals("file:" + mnist.toAbsolutePath(), store.location());
      List<byte[][]> recs = CaffeDbs.records(store, KeyRange.ALL);
      assertEquals(MNIST, recs.size());
      for (int i = 0; i < MNIST; i++) {
        assertEquals(String.format("%08d", i), CaffeDbs.key(recs.get(i)[0]));
        String where = store.recordName(recs.get(i)[0]);
        Datum d = Datum.parse(recs.get(i)[1], where);
        assertEquals(new DatumShape(1, 28, 28), d.shape(where));
        assertEquals(idx[1][i] & 0xff, d.label(), where);
        float[] chw = d.toChw(where);
        for (int p = 0; p < 784; p++) {
          assertEquals(idx[0][i * 784 + p] & 0xff, chw[p], where + " pixel " + p);
        }
      }
    }
  }

  /** data.mdb itself is accepted in place of its directory. */
  @Test
  void opensTheDataFileItself() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(mnist.resolve("data.mdb")))) {
      assertEquals(MNIST, store.count());
      assertEquals(MNIST, CaffeDbs.records(store, KeyRange.ALL).size());
    }
  }

  /**
   * 3x32x32 records (3,072 data bytes, over a 4 KiB page's node limit) are read from their overflow
   * pages. A reader that took the node's own bytes (the overflow page number) as the value, and one
   * that copied the overflow page from byte 0 (its header), both failed record '00000000': "not a
   * Caffe Datum (3083 bytes): a field tag of 3 at byte 0".
   */
  @Test
  void readsValuesOnOverflowPages() throws IOException {
    List<byte[]> expected = CaffeDbs.expected(cifar, 3072);
    int[] labels = CaffeDbs.labels(cifar);
    try (LmdbStore store = LmdbStore.open(StoragePath.of(cifar))) {
      List<byte[][]> recs = CaffeDbs.records(store, KeyRange.ALL);
      assertEquals(20, recs.size());
      for (int i = 0; i < recs.size(); i++) {
        String where = store.recordName(recs.get(i)[0]);
        Datum d = Datum.parse(recs.get(i)[1], where);
        assertEquals(new DatumShape(3, 32, 32), d.shape(where));
        assertEquals(labels[i], d.label());
        assertArrayEquals(expected.get(i), d.data(), where);
      }
    }
  }

  /**
   * float_data records, packed and not, with unknown fields between the known ones and a label of
   * -1 (a 10-byte varint). A parser that read packed float_data as one float failed record
   * '00000001': "a Datum of shape 2x3x4 (24 values) has 1 float_data values".
   */
  @Test
  void readsFloatData() throws IOException {
    List<byte[]> expected = CaffeDbs.expected(floats, 24 * 4);
    int[] labels = CaffeDbs.labels(floats);
    try (LmdbStore store = LmdbStore.open(StoragePath.of(floats))) {
      List<byte[][]> recs = CaffeDbs.records(store, KeyRange.ALL);
      assertEquals(10, recs.size());
      for (int i = 0; i < recs.size(); i++) {
        String where = store.recordName(recs.get(i)[0]);
        Datum d = Datum.parse(recs.get(i)[1], where);
        assertEquals(new DatumShape(2, 3, 4), d.shape(where));
        assertEquals(labels[i], d.label(), where);
        float[] want = new float[24];
        ByteBuffer.wrap(expected.get(i)).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(want);
        assertArrayEquals(want, d.toChw(where), where);
      }
    }
  }

  /**
   * The 20,000-record tree has depth 3; split ranges cover every record exactly once, in key order,
   * each within 10 % of an equal share. A split that stopped at n subtrees (no finer units) gave a
   * first range of 5,022 records of 3 (6,667 expected); a scan that did not climb the branch path
   * at the end of a subtree read 5,022 of 20,000; a range end taken inclusively put '00010044_...'
   * in two ranges; a descent that never took a branch's node 1 gave a range of 8,370.
   */
  @Test
  void splitsCoverEveryRecordOnceInBalancedRanges() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(many))) {
      assertTrue(store.depth() >= 3, "depth " + store.depth());
      assertEquals(MANY, store.count());
      for (int n : new int[] {1, 2, 3, 7, 16, 50}) {
        List<KeyRange> ranges = store.split(n);
        assertTrue(ranges.size() <= n && !ranges.isEmpty(), n + " -> " + ranges.size());
        assertEquals(n, ranges.size(), "as many ranges as asked for, " + n);
        int next = 0;
        for (KeyRange r : ranges) {
          List<byte[][]> recs = CaffeDbs.records(store, r);
          double share = (double) MANY / n;
          assertEquals(share, recs.size(), share * 0.1, n + " ranges: " + r);
          for (byte[][] rec : recs) {
            assertTrue(r.contains(rec[0]), r + " holds " + CaffeDbs.key(rec[0]));
            assertEquals(String.format("%08d", next++), CaffeDbs.key(rec[0]).substring(0, 8));
          }
        }
        assertEquals(MANY, next, n + " ranges hold every record");
      }
    }
  }

  /**
   * split reads only branch pages near the root: for 8 ranges of the depth-3 tree (a root over 4
   * branch pages over 323 leaves) at most those 4 branch pages, whose 323 children are enough units
   * (open has read the two meta pages and the path to the first leaf already). A split that went on
   * until 100 units a range read 325 pages, every leaf.
   */
  @Test
  void splitReadsOnlyBranchPages() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(many))) {
      long before = store.pagesRead();
      assertEquals(2 + store.depth(), before, "open reads the meta pages, the path to a leaf");
      store.split(8);
      long read = store.pagesRead() - before;
      assertTrue(read <= 4, "split(8) read " + read + " pages");
    }
  }

  /**
   * A range with bounds that are not keys, in the middle of leaves of different level-2 subtrees,
   * gives exactly its records. A scan that started at its leaf's first key rather than the first
   * key >= from gave 8,067 records for 8,024; one that did not climb the branch path gave 701.
   */
  @Test
  void scansARangeBetweenKeys() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(many))) {
      KeyRange r = new KeyRange(ascii("00004321"), ascii("00012345_"));
      List<byte[][]> recs = CaffeDbs.records(store, r);
      assertEquals(12345 - 4321, recs.size());
      assertEquals("00004321", CaffeDbs.key(recs.get(0)[0]).substring(0, 8));
      assertEquals("00012344", CaffeDbs.key(recs.get(recs.size() - 1)[0]).substring(0, 8));
      assertEquals(
          0, CaffeDbs.records(store, new KeyRange(ascii("00000007"), ascii("0000"))).size());
      assertEquals(0, CaffeDbs.records(store, new KeyRange(ascii("1"), null)).size());
      List<byte[][]> tail = CaffeDbs.records(store, new KeyRange(ascii("00019999"), null));
      assertEquals(1, tail.size());
      Datum last = Datum.parse(tail.get(0)[1], "last");
      assertArrayEquals(new byte[] {0x1f, 0x4e, 0, 0}, last.data());
    }
  }

  /**
   * More ranges asked for than there are records: one record a range, none empty. With range ends
   * taken inclusively the first range held 2.
   */
  @Test
  void splitsASmallDatabaseIntoSingleRecords() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(floats))) {
      List<KeyRange> ranges = store.split(64);
      assertEquals(10, ranges.size());
      for (KeyRange r : ranges) {
        assertEquals(1, CaffeDbs.records(store, r).size(), r.toString());
      }
    }
  }

  /** An empty LMDB is not an error here: count 0, one range, nothing scanned. */
  @Test
  void emptyDatabaseHasNoRecords() {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(empty))) {
      assertEquals(0, store.count());
      assertEquals(0, store.depth());
      assertEquals(List.of(KeyRange.ALL), store.split(4));
      assertEquals(0, CaffeDbs.records(store, KeyRange.ALL).size());
    }
  }

  @Test
  void closeIsIdempotentAndUseAfterCloseFails() {
    LmdbStore store = LmdbStore.open(StoragePath.of(floats));
    store.close();
    store.close();
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> store.scan(KeyRange.ALL, (k, v) -> {}));
    assertTrue(e.getMessage().contains("is closed"), e.getMessage());
    assertThrows(IllegalStateException.class, store::count);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }
}
