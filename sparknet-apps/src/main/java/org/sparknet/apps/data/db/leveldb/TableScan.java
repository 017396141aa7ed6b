package org.sparknet.apps.data.db.leveldb;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * The entries of one table with user keys in {@code [from, to)}, reading only the data blocks that
 * can hold them: from the first block whose separator is at or above {@code from}, up to the block
 * after the last separator below {@code to}. Consecutive blocks are read together, up to {@link
 * #READ_BYTES} at a time, so that a remote file system sees few large reads.
 */
final class TableScan implements EntrySource {
  static final long READ_BYTES = 1 << 20;
  private static final int DELETION = 0;
  private static final int VALUE = 1;

  private final Table table;
  private final FSDataInputStream in;
  private final byte[] to;
  private int nextBlock;
  private List<Block.Entry> entries = List.of();
  private int entry;
  private boolean valid = true;
  private byte[] userKey;
  private long sequence;
  private byte[] value;

  TableScan(Table table, FSDataInputStream in, byte[] from, byte[] to) {
    this.table = table;
    this.in = in;
    this.to = to;
    List<Table.IndexEntry> index = table.index();
    while (from != null
        && nextBlock < index.size()
        && Arrays.compareUnsigned(index.get(nextBlock).separatorUserKey(), from) < 0) {
      nextBlock++;
    }
    advance();
    while (valid && from != null && Arrays.compareUnsigned(userKey, from) < 0) {
      advance();
    }
  }

  @Override
  public boolean valid() {
    return valid;
  }

  @Override
  public byte[] userKey() {
    return userKey;
  }

  @Override
  public long sequence() {
    return sequence;
  }

  @Override
  public byte[] value() {
    return value;
  }

  @Override
  public void next() {
    advance();
  }

  private void advance() {
    while (entry == entries.size()) {
      if (!loadBlocks()) {
        valid = false;
        return;
      }
    }
    Block.Entry e = entries.get(entry++);
    byte[] key = e.key();
    if (key.length < 8) {
      throw corrupt("a key of " + key.length + " bytes (under the 8 of sequence and type)");
    }
    long tag = ByteCursor.fixed64(key, key.length - 8);
    int type = (int) (tag & 0xff);
    if (type != VALUE && type != DELETION) {
      throw corrupt("an entry of type " + type + " (LevelDB writes 0, deletion, and 1, value)");
    }
    userKey = Arrays.copyOf(key, key.length - 8);
    if (to != null && Arrays.compareUnsigned(userKey, to) >= 0) {
      valid = false;
      return;
    }
    sequence = tag >>> 8;
    value = type == VALUE ? e.value() : null;
  }

  /** Reads the next run of needed blocks; false when none is left. */
  private boolean loadBlocks() {
    List<Table.IndexEntry> index = table.index();
    if (nextBlock >= index.size() || nextBlock > 0 && pastEnd(index.get(nextBlock - 1))) {
      return false;
    }
    int end = nextBlock + 1;
    while (end < index.size()
        && !pastEnd(index.get(end - 1))
        && table.spanBytes(nextBlock, end + 1) <= READ_BYTES) {
      end++;
    }
    List<Block.Entry> loaded = new ArrayList<>();
    for (byte[] block : table.dataBlocks(in, nextBlock, end)) {
      loaded.addAll(Block.entries(block, table.name() + "'s data block"));
    }
    entries = loaded;
    entry = 0;
    nextBlock = end;
    return true;
  }

  /** Whether the blocks after the one {@code e} describes hold only keys at or above {@code to}. */
  private boolean pastEnd(Table.IndexEntry e) {
    return to != null && Arrays.compareUnsigned(e.separatorUserKey(), to) >= 0;
  }

  private IllegalArgumentException corrupt(String found) {
    return new IllegalArgumentException(
        table.name() + " is corrupt: " + found + "; restore it or rebuild the LevelDB");
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot close " + table.name() + ": " + e.getMessage(), e);
    }
  }
}
