package org.sparknet.apps.data.db.leveldb;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The records of a LevelDB log file (the write-ahead log and the manifest share the format): 32 KiB
 * blocks of fragments, each with a 7-byte header (masked CRC-32C, length, type), a record being one
 * FULL fragment or FIRST, MIDDLE..., LAST. A block's last bytes, too few for a header, are zero
 * padding.
 */
final class LogFile {
  private static final int BLOCK = 32 * 1024;
  private static final int HEADER = 7;
  private static final int ZERO = 0;
  private static final int FULL = 1;
  private static final int FIRST = 2;
  private static final int MIDDLE = 3;
  private static final int LAST = 4;

  private LogFile() {}

  /**
   * The records of {@code data}, the file {@code name}. A fragment cut short by the end of the file
   * is what a writer that died mid-record leaves: {@code tornTailOk} drops it (the write-ahead log,
   * as LevelDB does on recovery); otherwise (the manifest) it is an error.
   *
   * @throws IllegalArgumentException naming the file for a bad checksum, an unknown fragment type
   *     or fragments out of order
   */
  static List<byte[]> records(byte[] data, String name, boolean tornTailOk) {
    List<byte[]> out = new ArrayList<>();
    ByteArrayOutputStream pending = null;
    int pos = 0;
    while (pos < data.length) {
      int leftInBlock = BLOCK - pos % BLOCK;
      if (leftInBlock < HEADER) {
        pos += leftInBlock;
        continue;
      }
      if (data.length - pos < HEADER) {
        return torn(out, name, pos, tornTailOk);
      }
      int length = (data[pos + 4] & 0xff) | (data[pos + 5] & 0xff) << 8;
      int type = data[pos + 6] & 0xff;
      if (type == ZERO && length == 0) {
        // Space an mmap-based writer preallocated and never filled: the rest of the block is empty.
        pos += leftInBlock;
        continue;
      }
      if (HEADER + length > leftInBlock) {
        throw corrupt(name, pos, "a fragment of " + length + " bytes runs past its 32 KiB block");
      }
      if (pos + HEADER + length > data.length) {
        return torn(out, name, pos, tornTailOk);
      }
      if (ByteCursor.fixed32(data, pos) != MaskedCrc.of(data, pos + 6, 1 + length)) {
        throw corrupt(name, pos, "a record's checksum does not match");
      }
      int from = pos + HEADER;
      pos = from + length;
      switch (type) {
        case FULL -> {
          checkNoPending(pending, name, from);
          out.add(Arrays.copyOfRange(data, from, from + length));
        }
        case FIRST -> {
          checkNoPending(pending, name, from);
          pending = new ByteArrayOutputStream();
          pending.write(data, from, length);
        }
        case MIDDLE, LAST -> {
          if (pending == null) {
            throw corrupt(name, from, "a continued fragment without its first part");
          }
          pending.write(data, from, length);
          if (type == LAST) {
            out.add(pending.toByteArray());
            pending = null;
          }
        }
        default -> throw corrupt(name, from, "unknown fragment type " + type);
      }
    }
    if (pending != null) {
      return torn(out, name, pos, tornTailOk);
    }
    return out;
  }

  private static void checkNoPending(ByteArrayOutputStream pending, String name, int at) {
    if (pending != null) {
      throw corrupt(name, at, "a record starts before the previous one ended");
    }
  }

  private static List<byte[]> torn(List<byte[]> out, String name, int at, boolean tornTailOk) {
    if (tornTailOk) {
      return out;
    }
    throw new IllegalArgumentException(
        name
            + " is truncated: its last record breaks off at byte "
            + at
            + "; restore it or rebuild the LevelDB");
  }

  private static IllegalArgumentException corrupt(String name, int at, String found) {
    return new IllegalArgumentException(
        name + " is corrupt: " + found + " at byte " + at + "; restore it or rebuild the LevelDB");
  }
}
