package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sparknet.apps.data.db.LevelDbFixtures.assertSameRecords;
import static org.sparknet.apps.data.db.LevelDbFixtures.scan;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.LevelDbFixtures.Written;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * A LevelDB that plyvel wrote, read in place on a real HDFS (Hadoop's MiniDFSCluster): every record
 * over a split, and a narrow range read with a fraction of the database's bytes, as the HDFS client
 * counts them (the tables' footers and indexes, the log, and only the data blocks that can hold the
 * range).
 *
 * <p>The narrow range read 64,744 of the database's 2,287,831 bytes (its 43 KB log is most of
 * that); a reader that read each overlapping table's data blocks whole for a scan read 1,193,491
 * and failed the fraction check.
 */
class LevelDbStoreHdfsIT {
  @Test
  void aLevelDbOnHdfsIsReadInPlaceOnlyWhereARangeNeedsIt(@TempDir Path tmp) throws Exception {
    Written db = LevelDbFixtures.write(tmp.resolve("db"), "none");
    long dbBytes;
    try (Stream<Path> files = Files.list(db.dir())) {
      dbBytes = files.mapToLong(p -> p.toFile().length()).sum();
    }
    try (MiniHdfs hdfs = MiniHdfs.start(tmp.resolve("dfs"))) {
      hdfs.upload(db.dir(), "/data/train_leveldb");
      StoragePath dir = StoragePath.of(hdfs.uri("/data/train_leveldb"));
      try (LevelDbStore store = LevelDbStore.open(dir)) {
        List<KeyRange> ranges = store.split(4);
        assertEquals(4, ranges.size());
        List<String> all = new ArrayList<>();
        for (KeyRange r : ranges) {
          all.addAll(scan(store, r));
        }
        assertSameRecords(db.records(), all, "split(4) on HDFS");
      }
      KeyRange narrow = new KeyRange(key("00001500"), key("00001510"));
      long before = MiniHdfs.clientBytesRead();
      List<String> part;
      try (LevelDbStore store = LevelDbStore.open(dir)) {
        part = scan(store, narrow);
      }
      long served = MiniHdfs.clientBytesRead() - before;
      assertSameRecords(
          db.records().stream().filter(l -> narrow.contains(key(l.split("\t")[0]))).toList(),
          part,
          "a scan of " + narrow + " on HDFS");
      assertTrue(
          served * 5 < dbBytes,
          "a scan of " + part.size() + " records read " + served + " of " + dbBytes + " bytes");
    }
  }

  private static byte[] key(String k) {
    return k.getBytes(StandardCharsets.US_ASCII);
  }
}
