package org.sparknet.apps.data.db.leveldb;

import java.util.Arrays;

/**
 * Reads LevelDB's little-endian fixed-width integers, varints and length-prefixed byte strings from
 * a byte array, between {@code pos} and {@code end}. Running past {@code end} or an overlong varint
 * is an {@link IllegalArgumentException} that names {@code what}: the caller's file and structure,
 * so that a corrupt file is reported by name.
 */
final class ByteCursor {
  private final byte[] buf;
  private final int end;
  private final String what;
  private int pos;

  ByteCursor(byte[] buf, int from, int end, String what) {
    this.buf = buf;
    this.pos = from;
    this.end = end;
    this.what = what;
  }

  boolean atEnd() {
    return pos >= end;
  }

  int position() {
    return pos;
  }

  int u8() {
    need(1);
    return buf[pos++] & 0xff;
  }

  int fixed32() {
    need(4);
    int v = fixed32(buf, pos);
    pos += 4;
    return v;
  }

  long fixed64() {
    need(8);
    long v = fixed64(buf, pos);
    pos += 8;
    return v;
  }

  int varint32() {
    long v = varint64();
    if (v > Integer.MAX_VALUE) {
      throw corrupt("a length of " + v + " bytes");
    }
    return (int) v;
  }

  long varint64() {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = u8();
      v |= (long) (b & 0x7f) << shift;
      if (b < 0x80) {
        return v;
      }
    }
    throw corrupt("a varint longer than 10 bytes");
  }

  /** A varint32 length, then that many bytes. */
  byte[] lengthPrefixed() {
    return bytes(varint32());
  }

  byte[] bytes(int n) {
    need(n);
    byte[] out = Arrays.copyOfRange(buf, pos, pos + n);
    pos += n;
    return out;
  }

  void skip(int n) {
    need(n);
    pos += n;
  }

  IllegalArgumentException corrupt(String found) {
    return new IllegalArgumentException(
        what + " is corrupt: " + found + "; restore it or rebuild the LevelDB");
  }

  private void need(int n) {
    if (n < 0 || n > end - pos) {
      throw corrupt("it ends inside a field");
    }
  }

  static int fixed32(byte[] b, int at) {
    return (b[at] & 0xff)
        | (b[at + 1] & 0xff) << 8
        | (b[at + 2] & 0xff) << 16
        | (b[at + 3] & 0xff) << 24;
  }

  static long fixed64(byte[] b, int at) {
    return (fixed32(b, at) & 0xffffffffL) | (long) fixed32(b, at + 4) << 32;
  }
}
