package org.sparknet.apps.data.db.leveldb;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The writes of the live write-ahead logs that fall in a key range, newest version of each key:
 * what LevelDB held in its memtable when it closed (it does not write the memtable to a table on
 * close). Each log record is a write batch: an 8-byte sequence number, a 4-byte count, then that
 * many entries (1: a key and value, 0: a deleted key), numbered from the batch's sequence.
 */
final class LogEntries {
  private static final int DELETION = 0;
  private static final int VALUE = 1;
  private static final int HEADER = 12;

  /** The newest write of a key: its sequence, and its value (null: deleted). */
  record Write(long sequence, byte[] value, int valueLength) {}

  private final TreeMap<byte[], Write> writes = new TreeMap<>(Arrays::compareUnsigned);
  private final byte[] from;
  private final byte[] to;
  private final boolean keepValues;

  /**
   * Writes of keys in {@code [from, to)} (null: open); without {@code keepValues} only their
   * lengths are kept (to weigh the log's keys when splitting).
   */
  LogEntries(byte[] from, byte[] to, boolean keepValues) {
    this.from = from;
    this.to = to;
    this.keepValues = keepValues;
  }

  /**
   * Adds the write batches of {@code log}, the file {@code name}; logs may come in any order, since
   * the higher sequence wins.
   */
  void add(byte[] log, String name) {
    for (byte[] batch : LogFile.records(log, name, true)) {
      ByteCursor in = new ByteCursor(batch, 0, batch.length, name + "'s write batch");
      if (batch.length < HEADER) {
        throw in.corrupt("a write batch of " + batch.length + " bytes (under its 12-byte header)");
      }
      long sequence = in.fixed64();
      int count = in.fixed32();
      for (int i = 0; i < count; i++) {
        int type = in.u8();
        byte[] key = in.lengthPrefixed();
        byte[] value = null;
        int valueLength = 0;
        if (type == VALUE) {
          valueLength = in.varint32();
          value = keepValues ? in.bytes(valueLength) : null;
          if (!keepValues) {
            in.skip(valueLength);
          }
        } else if (type != DELETION) {
          throw in.corrupt(
              "a write of type " + type + " (LevelDB writes 0, deletion, and 1, value)");
        }
        put(key, new Write(sequence + i, type == VALUE ? orEmpty(value) : null, valueLength));
      }
      if (!in.atEnd()) {
        throw in.corrupt("bytes after the " + count + " writes the batch's header counts");
      }
    }
  }

  private static byte[] orEmpty(byte[] value) {
    return value == null ? new byte[0] : value;
  }

  private void put(byte[] key, Write w) {
    if ((from != null && Arrays.compareUnsigned(key, from) < 0)
        || (to != null && Arrays.compareUnsigned(key, to) >= 0)) {
      return;
    }
    Write old = writes.get(key);
    if (old == null || old.sequence() < w.sequence()) {
      writes.put(key, w);
    }
  }

  /** The newest write of each key, in key order. */
  Map<byte[], Write> writes() {
    return writes;
  }

  /** The writes as a sorted source; the values are shared with this object. */
  EntrySource source() {
    Iterator<Map.Entry<byte[], Write>> it = writes.entrySet().iterator();
    return new EntrySource() {
      private Map.Entry<byte[], Write> current = it.hasNext() ? it.next() : null;

      @Override
      public boolean valid() {
        return current != null;
      }

      @Override
      public byte[] userKey() {
        return current.getKey();
      }

      @Override
      public long sequence() {
        return current.getValue().sequence();
      }

      @Override
      public byte[] value() {
        return current.getValue().value();
      }

      @Override
      public void next() {
        current = it.hasNext() ? it.next() : null;
      }

      @Override
      public void close() {
        current = null;
      }
    };
  }
}
