package org.sparknet.apps.data.db.leveldb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The entries of one table block (data or index), decompressed: each key stored as the number of
 * bytes it shares with the previous key, the rest, and the value; then the restart array (offsets
 * where a key is stored whole) and its length, which only speed up a seek and are skipped here.
 */
final class Block {
  private Block() {}

  /** One key and value. */
  record Entry(byte[] key, byte[] value) {}

  /**
   * The entries of {@code contents}, in order.
   *
   * @throws IllegalArgumentException naming {@code what} (the table and block) when the block is
   *     malformed
   */
  static List<Entry> entries(byte[] contents, String what) {
    if (contents.length < 4) {
      throw new ByteCursor(contents, 0, contents.length, what).corrupt("a block of under 4 bytes");
    }
    long restarts = ByteCursor.fixed32(contents, contents.length - 4) & 0xffffffffL;
    long entriesEnd = contents.length - 4 - 4 * restarts;
    ByteCursor in = new ByteCursor(contents, 0, (int) Math.max(entriesEnd, 0), what);
    if (entriesEnd < 0) {
      throw in.corrupt(
          "a restart array of "
              + restarts
              + " entries in a block of "
              + contents.length
              + " bytes");
    }
    List<Entry> out = new ArrayList<>();
    byte[] previous = new byte[0];
    while (!in.atEnd()) {
      int shared = in.varint32();
      int unshared = in.varint32();
      int valueLength = in.varint32();
      if (shared > previous.length) {
        throw in.corrupt("a key sharing " + shared + " bytes with a key of " + previous.length);
      }
      byte[] key = Arrays.copyOf(previous, shared + unshared);
      byte[] rest = in.bytes(unshared);
      System.arraycopy(rest, 0, key, shared, unshared);
      out.add(new Entry(key, in.bytes(valueLength)));
      previous = key;
    }
    return out;
  }
}
