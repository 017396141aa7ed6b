package org.sparknet.apps.data.db;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.leveldb.LevelDbReader;

/**
 * A LevelDB (Caffe's {@code backend: LEVELDB}) read in pure Java where it is stored, on any Hadoop
 * file system, and never written (LevelDB's own library writes into the directory when it opens
 * it). Only the default bytewise comparator is read. The newest version of each key wins across the
 * tables of every level and the live logs, which hold what LevelDB had not yet written to a table
 * when it closed; a deletion hides its key. Table blocks' checksums are verified.
 *
 * <p>Not thread-safe: one store per task.
 */
public final class LevelDbStore extends ReadOnlyStore {
  private final LevelDbReader reader;

  private LevelDbStore(String location, LevelDbReader reader) {
    super("LevelDB", location);
    this.reader = reader;
  }

  /**
   * Opens the LevelDB directory {@code dir}, reading its listing, {@code CURRENT} and manifest. An
   * empty database is not an error.
   *
   * @throws IllegalArgumentException naming the URI when it is missing or not a LevelDB (an LMDB is
   *     named as such), uses another comparator, or its manifest or a table is truncated or corrupt
   */
  public static LevelDbStore open(StoragePath dir) {
    String location = dir.toString();
    return new LevelDbStore(
        location, LevelDbReader.open(dir.fileSystem(), dir.hadoopPath(), location));
  }

  /** -1: LevelDB keeps no count; only a full scan could tell. */
  @Override
  public long count() {
    checkOpen();
    return -1;
  }

  /**
   * Ranges cut at keys chosen from the tables' index blocks (each data block weighted by its bytes)
   * and the log's writes; fewer than {@code n} when the database has fewer blocks.
   */
  @Override
  List<KeyRange> ranges(int n) {
    List<KeyRange> out = new ArrayList<>();
    byte[] from = null;
    for (byte[] boundary : reader.splitKeys(n)) {
      out.add(new KeyRange(from, boundary));
      from = boundary;
    }
    out.add(new KeyRange(from, null));
    return out;
  }

  @Override
  public void scan(KeyRange range, RecordVisitor visitor) {
    checkOpen();
    reader.scan(range.from(), range.to(), visitor::record);
  }

  /** The number of live tables at each level, 0 to 6, as the manifest lists them. */
  public int[] tablesPerLevel() {
    checkOpen();
    return reader.tablesPerLevel();
  }

  /** The bytes of the live logs: the writes that are in no table yet. */
  public long logBytes() {
    checkOpen();
    return reader.logBytes();
  }
}
