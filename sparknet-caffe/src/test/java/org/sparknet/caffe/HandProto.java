package org.sparknet.caffe;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A protobuf wire-format writer written for the tests, independent of the code under test, to make
 * Caffe files (a V1 .caffemodel) byte by byte: tags, varints, length-delimited fields.
 */
final class HandProto {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  HandProto varint(int field, long value) {
    raw(((long) field << 3));
    raw(value);
    return this;
  }

  HandProto bytes(int field, byte[] value) {
    raw(((long) field << 3) | 2);
    raw(value.length);
    out.writeBytes(value);
    return this;
  }

  HandProto string(int field, String value) {
    return bytes(field, value.getBytes(StandardCharsets.UTF_8));
  }

  HandProto message(int field, HandProto m) {
    return bytes(field, m.toBytes());
  }

  /** A packed repeated float (Caffe's BlobProto.data is declared packed). */
  HandProto packedFloats(int field, float[] values) {
    ByteBuffer b = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      b.putFloat(v);
    }
    return bytes(field, b.array());
  }

  byte[] toBytes() {
    return out.toByteArray();
  }

  private void raw(long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }
}
