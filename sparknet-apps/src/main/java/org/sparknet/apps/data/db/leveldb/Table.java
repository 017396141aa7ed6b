package org.sparknet.apps.data.db.leveldb;

import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.fs.FSDataInputStream;
import org.xerial.snappy.Snappy;

/**
 * A table file's index, read from its 48-byte footer (the metaindex and index block handles and the
 * magic number) and its index block: one entry per data block, whose key is a separator (an
 * internal key at or above the block's last key and below the next block's first) and whose value
 * the block's handle. Blocks are read by positional reads; each is followed by a trailer of its
 * compression type (none or Snappy) and masked CRC-32C, which is verified.
 */
final class Table {
  private static final int FOOTER = 48;
  private static final long MAGIC = 0xdb4775248b80fb57L;
  private static final int TRAILER = 5;
  private static final int NONE = 0;
  private static final int SNAPPY = 1;

  private final String name;
  private final TableFile file;
  private final List<IndexEntry> index;

  /** A data block's separator (an internal key) and where the block lies. */
  record IndexEntry(byte[] separator, long offset, long size) {
    byte[] separatorUserKey() {
      return Arrays.copyOf(separator, separator.length - 8);
    }
  }

  private Table(String name, TableFile file, List<IndexEntry> index) {
    this.name = name;
    this.file = file;
    this.index = index;
  }

  String name() {
    return name;
  }

  TableFile file() {
    return file;
  }

  List<IndexEntry> index() {
    return index;
  }

  /**
   * Reads the footer and index of {@code file}, named {@code name}, from {@code in}.
   *
   * @throws IllegalArgumentException naming the file when it is truncated or corrupt
   */
  static Table open(FSDataInputStream in, String name, TableFile file) {
    if (file.size() < FOOTER) {
      throw new IllegalArgumentException(
          name
              + " is truncated: "
              + file.size()
              + " bytes, under a table's "
              + FOOTER
              + "-byte footer; restore it or rebuild the LevelDB");
    }
    byte[] footer = read(in, name, file.size() - FOOTER, FOOTER);
    if (ByteCursor.fixed64(footer, 40) != MAGIC) {
      throw new IllegalArgumentException(
          name
              + " is not a LevelDB table (no table magic number at its end): it is truncated"
              + " or corrupt; restore it or rebuild the LevelDB");
    }
    ByteCursor f = new ByteCursor(footer, 0, 40, name + "'s footer");
    f.varint64();
    f.varint64();
    long indexOffset = f.varint64();
    long indexSize = f.varint64();
    Table table = new Table(name, file, List.of());
    byte[] contents = table.block(in, indexOffset, indexSize, "index block");
    List<IndexEntry> entries = new ArrayList<>();
    for (Block.Entry e : Block.entries(contents, name + "'s index block")) {
      ByteCursor h = new ByteCursor(e.value(), 0, e.value().length, name + "'s index block");
      if (e.key().length < 8) {
        throw h.corrupt("a separator of " + e.key().length + " bytes");
      }
      entries.add(new IndexEntry(e.key(), h.varint64(), h.varint64()));
    }
    return new Table(name, file, List.copyOf(entries));
  }

  /**
   * The contents of data blocks {@code from} to {@code to} (exclusive) by index position, read with
   * one positional read: data blocks lie one after the other.
   */
  List<byte[]> dataBlocks(FSDataInputStream in, int from, int to) {
    IndexEntry first = index.get(from);
    IndexEntry last = index.get(to - 1);
    long spanEnd = last.offset() + last.size() + TRAILER;
    checkInFile(first.offset(), spanEnd - first.offset(), "data block " + from);
    byte[] span = read(in, name, first.offset(), (int) (spanEnd - first.offset()));
    List<byte[]> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      IndexEntry e = index.get(i);
      long at = e.offset() - first.offset();
      if (at < 0 || at + e.size() + TRAILER > span.length) {
        throw corrupt("data block " + i + " lies outside the table's data blocks");
      }
      out.add(contents(span, (int) at, (int) e.size(), "data block " + i));
    }
    return out;
  }

  /** The bytes a span of data blocks takes in the file, trailers included. */
  long spanBytes(int from, int to) {
    IndexEntry last = index.get(to - 1);
    return last.offset() + last.size() + TRAILER - index.get(from).offset();
  }

  private byte[] block(FSDataInputStream in, long offset, long size, String what) {
    checkInFile(offset, size + TRAILER, what);
    byte[] raw = read(in, name, offset, (int) size + TRAILER);
    return contents(raw, 0, (int) size, what);
  }

  private void checkInFile(long offset, long length, String what) {
    if (offset < 0
        || length < 0
        || length > Integer.MAX_VALUE - 8
        || offset + length > file.size() - FOOTER) {
      throw new IllegalArgumentException(
          name
              + " is truncated or corrupt: its "
              + what
              + " at byte "
              + offset
              + " ("
              + length
              + " bytes) lies past its end; restore it or rebuild the LevelDB");
    }
  }

  /** The block at {@code raw[at, at + size)}, its trailer verified, decompressed. */
  private byte[] contents(byte[] raw, int at, int size, String what) {
    int type = raw[at + size] & 0xff;
    if (ByteCursor.fixed32(raw, at + size + 1) != MaskedCrc.of(raw, at, size + 1)) {
      throw corrupt("the checksum of its " + what + " does not match");
    }
    return switch (type) {
      case NONE -> Arrays.copyOfRange(raw, at, at + size);
      case SNAPPY -> unsnappy(raw, at, size, what);
      default ->
          throw corrupt(
              what
                  + " has compression type "
                  + type
                  + " (this reader knows 0, none, and 1, Snappy)");
    };
  }

  private byte[] unsnappy(byte[] raw, int at, int size, String what) {
    try {
      byte[] out = new byte[Snappy.uncompressedLength(raw, at, size)];
      Snappy.uncompress(raw, at, size, out, 0);
      return out;
    } catch (IOException e) {
      throw corrupt("its " + what + " is not valid Snappy data (" + e.getMessage() + ")");
    }
  }

  private IllegalArgumentException corrupt(String found) {
    return new IllegalArgumentException(
        name + " is corrupt: " + found + "; restore it or rebuild the LevelDB");
  }

  static byte[] read(FSDataInputStream in, String name, long pos, int length) {
    byte[] buf = new byte[length];
    try {
      in.readFully(pos, buf, 0, length);
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          name
              + " is truncated: it ends before byte "
              + (pos + length)
              + "; restore it or rebuild the LevelDB",
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    return buf;
  }
}
