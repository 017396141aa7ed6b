package org.sparknet.caffe.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A protobuf message in wire format, built field by field and written in one pass: nested messages
 * and float payloads are kept as references until {@link #writeTo}, so that a model with hundreds
 * of megabytes of weights is not copied once per nesting level. Only what ONNX's messages need:
 * varints, fixed32 floats, length-delimited bytes, strings and messages.
 */
public final class ProtoMessage {
  private static final int VARINT = 0;
  private static final int FIXED32 = 5;
  private static final int DELIMITED = 2;

  /** Encoded bytes, a nested message or a float payload, in field order. */
  private final List<Object> parts = new ArrayList<>();

  private record Nested(byte[] tag, ProtoMessage message) {}

  private record Floats(byte[] tag, float[] values) {}

  private long size = -1;

  public ProtoMessage varint(int field, long value) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(11);
    writeVarint(b, ((long) field << 3) | VARINT);
    writeVarint(b, value);
    return add(b.toByteArray());
  }

  public ProtoMessage fixedFloat(int field, float value) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(9);
    writeVarint(b, ((long) field << 3) | FIXED32);
    int bits = Float.floatToRawIntBits(value);
    for (int i = 0; i < 4; i++) {
      b.write(bits >>> (8 * i));
    }
    return add(b.toByteArray());
  }

  public ProtoMessage bytes(int field, byte[] value) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(value.length + 11);
    b.writeBytes(tag(field, value.length));
    b.writeBytes(value);
    return add(b.toByteArray());
  }

  public ProtoMessage string(int field, String value) {
    return bytes(field, value.getBytes(StandardCharsets.UTF_8));
  }

  public ProtoMessage message(int field, ProtoMessage m) {
    size = -1;
    parts.add(new Nested(tag(field, m.size()), m));
    return this;
  }

  /** {@code values} as little-endian floats in one bytes field (ONNX's raw_data). */
  public ProtoMessage rawFloats(int field, float[] values) {
    size = -1;
    parts.add(new Floats(tag(field, 4L * values.length), values));
    return this;
  }

  private ProtoMessage add(byte[] encoded) {
    size = -1;
    parts.add(encoded);
    return this;
  }

  /** The encoded length in bytes. */
  public long size() {
    if (size < 0) {
      long n = 0;
      for (Object p : parts) {
        if (p instanceof byte[] b) {
          n += b.length;
        } else if (p instanceof Nested m) {
          n += m.tag().length + m.message().size();
        } else {
          Floats f = (Floats) p;
          n += f.tag().length + 4L * f.values().length;
        }
      }
      size = n;
    }
    return size;
  }

  public void writeTo(OutputStream out) throws IOException {
    for (Object p : parts) {
      if (p instanceof byte[] b) {
        out.write(b);
      } else if (p instanceof Nested m) {
        out.write(m.tag());
        m.message().writeTo(out);
      } else {
        Floats f = (Floats) p;
        out.write(f.tag());
        writeFloats(out, f.values());
      }
    }
  }

  public byte[] toByteArray() {
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) Math.min(size(), 1 << 20));
    try {
      writeTo(out);
    } catch (IOException e) {
      throw new IllegalStateException("a byte array stream does not fail", e);
    }
    return out.toByteArray();
  }

  private static void writeFloats(OutputStream out, float[] values) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(1 << 16).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      if (!buf.hasRemaining()) {
        out.write(buf.array(), 0, buf.position());
        buf.clear();
      }
      buf.putFloat(v);
    }
    out.write(buf.array(), 0, buf.position());
  }

  private static byte[] tag(int field, long length) {
    ByteArrayOutputStream b = new ByteArrayOutputStream(16);
    writeVarint(b, ((long) field << 3) | DELIMITED);
    writeVarint(b, length);
    return b.toByteArray();
  }

  private static void writeVarint(ByteArrayOutputStream b, long v) {
    while ((v & ~0x7FL) != 0) {
      b.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    b.write((int) v);
  }
}
