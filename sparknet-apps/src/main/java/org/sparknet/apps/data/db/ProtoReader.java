package org.sparknet.apps.data.db;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads protobuf's wire format: tags, varints, fixed 32- and 64-bit values and length-delimited
 * fields. A truncated or overlong field fails with {@link IllegalArgumentException} saying where in
 * the message it is; the caller names the record.
 */
final class ProtoReader {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private final byte[] b;
  private final int end;
  private int pos;

  ProtoReader(byte[] bytes) {
    this(bytes, 0, bytes.length);
  }

  private ProtoReader(byte[] bytes, int from, int end) {
    this.b = bytes;
    this.pos = from;
    this.end = end;
  }

  boolean atEnd() {
    return pos >= end;
  }

  int position() {
    return pos;
  }

  /** The next tag (field number << 3 | wire type); field number 0 is malformed. */
  int tag() {
    int at = pos;
    long tag = varint();
    if (tag >>> 3 == 0 || tag > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("a field tag of " + tag + " at byte " + at);
    }
    return (int) tag;
  }

  long varint() {
    int at = pos;
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= end) {
        throw new IllegalArgumentException("a varint at byte " + at + " runs past the end");
      }
      byte x = b[pos++];
      v |= (long) (x & 0x7f) << shift;
      if (x >= 0) {
        return v;
      }
    }
    throw new IllegalArgumentException("a varint at byte " + at + " is longer than 10 bytes");
  }

  float fixed32Float() {
    require(4, "a 32-bit value");
    float f = ByteBuffer.wrap(b, pos, 4).order(ByteOrder.LITTLE_ENDIAN).getFloat();
    pos += 4;
    return f;
  }

  /** A length-delimited field's bytes. */
  byte[] bytes() {
    int n = length();
    byte[] out = new byte[n];
    System.arraycopy(b, pos, out, 0, n);
    pos += n;
    return out;
  }

  /** A length-delimited field as a reader of its own bytes (a packed repeated field). */
  ProtoReader sub() {
    int n = length();
    ProtoReader r = new ProtoReader(b, pos, pos + n);
    pos += n;
    return r;
  }

  int remaining() {
    return end - pos;
  }

  /** Skips a field of {@code wireType} whose tag was read. */
  void skip(int wireType, int field) {
    switch (wireType) {
      case VARINT -> varint();
      case FIXED64 -> {
        require(8, "field " + field + "'s 64-bit value");
        pos += 8;
      }
      case LENGTH_DELIMITED -> {
        int n = length(); // read before pos is, which length() moves
        pos += n;
      }
      case FIXED32 -> {
        require(4, "field " + field + "'s 32-bit value");
        pos += 4;
      }
      default ->
          throw new IllegalArgumentException(
              "field " + field + " has wire type " + wireType + ", which no Datum field has");
    }
  }

  private int length() {
    int at = pos;
    long n = varint();
    if (n < 0 || n > end - pos) {
      throw new IllegalArgumentException(
          "a field at byte " + at + " claims " + n + " bytes, but " + (end - pos) + " remain");
    }
    return (int) n;
  }

  private void require(int n, String what) {
    if (end - pos < n) {
      throw new IllegalArgumentException(what + " at byte " + pos + " runs past the end");
    }
  }
}
