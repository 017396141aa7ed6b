package org.sparknet.apps.data.db;

import java.io.ByteArrayOutputStream;

/**
 * Encodes one example as a raw Caffe {@code Datum} in protobuf's wire format, as Caffe's converters
 * write it: channels, height and width, then either {@code data} (one unsigned byte a value) when
 * every value is an integer from 0 to 255, else packed {@code float_data}, and the label, in field
 * order (as protobuf serializes), which {@link Datum#parse} reads back.
 */
final class DatumEncoder {
  private static final int VARINT = 0;
  private static final int LENGTH_DELIMITED = 2;

  private DatumEncoder() {}

  /**
   * The serialized Datum of {@code chw} (channels x height x width values) with {@code label}.
   *
   * @param where names the example in errors, e.g. "example 42 of --input train.parquet"
   * @throws IllegalArgumentException naming {@code where} when the values do not fill {@code shape}
   */
  static byte[] encode(DatumShape shape, float[] chw, int label, String where) {
    if (chw.length != shape.size()) {
      throw new IllegalArgumentException(
          String.format(
              "%s has %d values, but the data's shape %s needs %d",
              where, chw.length, shape, shape.size()));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(chw.length * 4 + 32);
    varintField(out, 1, shape.channels());
    varintField(out, 2, shape.height());
    varintField(out, 3, shape.width());
    boolean bytes = allBytes(chw);
    if (bytes) {
      tag(out, 4, LENGTH_DELIMITED);
      varint(out, chw.length);
      for (float v : chw) {
        out.write((int) v);
      }
    }
    varintField(out, 5, label);
    if (!bytes) {
      tag(out, 6, LENGTH_DELIMITED);
      varint(out, 4L * chw.length);
      for (float v : chw) {
        int bits = Float.floatToRawIntBits(v);
        for (int i = 0; i < 32; i += 8) {
          out.write(bits >>> i);
        }
      }
    }
    return out.toByteArray();
  }

  /** Whether {@code data} can hold the values exactly: each an integer from 0 to 255. */
  static boolean allBytes(float[] chw) {
    for (float v : chw) {
      if (!(v >= 0 && v <= 255 && v == Math.rint(v))) {
        return false;
      }
    }
    return true;
  }

  private static void varintField(ByteArrayOutputStream out, int field, int value) {
    tag(out, field, VARINT);
    // protobuf writes a negative int32 sign-extended to 64 bits (ten bytes)
    varint(out, value);
  }

  private static void tag(ByteArrayOutputStream out, int field, int wireType) {
    varint(out, (long) field << 3 | wireType);
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
  }
}
