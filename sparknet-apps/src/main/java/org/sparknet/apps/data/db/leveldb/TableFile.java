package org.sparknet.apps.data.db.leveldb;

import java.util.Arrays;

/**
 * A live table as the manifest lists it: its level, file number, size in bytes, and the user keys
 * of its smallest and largest entries (internal keys less their 8-byte sequence and type).
 */
record TableFile(int level, long number, long size, byte[] smallest, byte[] largest) {

  /** Whether any key of {@code [from, to)} (null: open) can lie in this table. */
  boolean overlaps(byte[] from, byte[] to) {
    return (from == null || Arrays.compareUnsigned(largest, from) >= 0)
        && (to == null || Arrays.compareUnsigned(smallest, to) < 0);
  }

  /** The file's names, new ({@code .ldb}) and old ({@code .sst}). */
  String[] names() {
    String base = String.format("%06d", number);
    return new String[] {base + ".ldb", base + ".sst"};
  }
}
