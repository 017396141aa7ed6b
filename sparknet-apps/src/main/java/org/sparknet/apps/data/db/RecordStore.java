package org.sparknet.apps.data.db;

import java.util.List;

/**
 * A read-only key-value database of records, read where it is stored (any Hadoop file system)
 * without copying it: Caffe's LMDB and LevelDB. The driver opens it to count and split it into key
 * ranges, reading only its index pages; each executor opens it again and scans its own range.
 */
public interface RecordStore extends AutoCloseable {
  /** The store's location, for messages. */
  String location();

  /** The number of records, or -1 when only a full scan could tell (LevelDB). */
  long count();

  /**
   * At most {@code n} key ranges that together cover every record exactly once, in key order, of
   * roughly equal sizes, chosen from index pages only (never a scan of the records).
   */
  List<KeyRange> split(int n);

  /** Calls {@code visitor} for each record in {@code range}, in key order. */
  void scan(KeyRange range, RecordVisitor visitor);

  /** Idempotent. */
  @Override
  void close();

  /** Receives one record; the arrays are the visitor's to keep. */
  @FunctionalInterface
  interface RecordVisitor {
    void record(byte[] key, byte[] value);
  }
}
