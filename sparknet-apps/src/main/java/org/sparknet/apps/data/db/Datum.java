package org.sparknet.apps.data.db;

import java.util.Arrays;

/**
 * One Caffe {@code Datum} (caffe.proto): an image or feature vector with its label, as Caffe's
 * LMDBs and LevelDBs hold them. Raw Datums carry their shape and either {@code data} (one unsigned
 * byte a value, channels x height x width) or {@code float_data}; encoded ones ({@code
 * convert_imageset --encoded}) carry a JPEG or PNG file in {@code data} and no shape, which comes
 * from decoding it.
 *
 * @param channels field 1 (0 when absent)
 * @param height field 2
 * @param width field 3
 * @param data field 4: raw pixels or the encoded image; empty when absent; not copied
 * @param label field 5
 * @param floatData field 6, packed or not; empty when absent; not copied
 * @param encoded field 7
 */
public record Datum(
    int channels,
    int height,
    int width,
    byte[] data,
    int label,
    float[] floatData,
    boolean encoded) {

  /**
   * How an encoded Datum's image is decoded, as Caffe's DataTransformer does: {@code NATIVE} keeps
   * the file's channels (DecodeDatumToCVMatNative: imdecode with flag -1, so a grey PNG gives one
   * channel, a PNG with alpha four); {@code COLOR} and {@code GRAY} are {@code force_color} and
   * {@code force_gray} (DecodeDatumToCVMat: three B, G, R channels, or one). Raw Datums ignore it,
   * as Caffe does.
   */
  public enum Decode {
    NATIVE,
    COLOR,
    GRAY
  }

  private static final int CHANNELS = 1;
  private static final int HEIGHT = 2;
  private static final int WIDTH = 3;
  private static final int DATA = 4;
  private static final int LABEL = 5;
  private static final int FLOAT_DATA = 6;
  private static final int ENCODED = 7;

  /**
   * Decodes a serialized Datum; unknown fields are skipped, a repeated scalar field keeps its last
   * value (as protobuf does).
   *
   * @param where names the record in errors, e.g. "LMDB hdfs://nn/train_lmdb, record '00000042'"
   * @throws IllegalArgumentException naming {@code where} when the bytes are not a Datum
   */
  public static Datum parse(byte[] value, String where) {
    try {
      return parse(new ProtoReader(value));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where + ": not a Caffe Datum (" + value.length + " bytes): " + e.getMessage(), e);
    }
  }

  private static Datum parse(ProtoReader in) {
    int channels = 0;
    int height = 0;
    int width = 0;
    int label = 0;
    boolean encoded = false;
    byte[] data = new byte[0];
    FloatList floats = new FloatList();
    while (!in.atEnd()) {
      int tag = in.tag();
      int field = tag >>> 3;
      int type = tag & 7;
      switch (field) {
        case CHANNELS -> channels = int32(in, type, "channels");
        case HEIGHT -> height = int32(in, type, "height");
        case WIDTH -> width = int32(in, type, "width");
        case LABEL -> label = int32(in, type, "label");
        case ENCODED -> encoded = int32(in, type, "encoded") != 0;
        case DATA -> {
          expect(type, ProtoReader.LENGTH_DELIMITED, "data");
          data = in.bytes();
        }
        case FLOAT_DATA -> readFloats(in, type, floats);
        default -> in.skip(type, field);
      }
    }
    return new Datum(channels, height, width, data, label, floats.toArray(), encoded);
  }

  /** An int32 field: a varint whose low 32 bits are the value (negative ones take 10 bytes). */
  private static int int32(ProtoReader in, int type, String name) {
    expect(type, ProtoReader.VARINT, name);
    return (int) in.varint();
  }

  private static void readFloats(ProtoReader in, int type, FloatList out) {
    if (type == ProtoReader.FIXED32) {
      out.add(in.fixed32Float());
      return;
    }
    expect(type, ProtoReader.LENGTH_DELIMITED, "float_data");
    ProtoReader packed = in.sub();
    if (packed.remaining() % 4 != 0) {
      throw new IllegalArgumentException(
          "packed float_data of " + packed.remaining() + " bytes, not a multiple of 4");
    }
    while (!packed.atEnd()) {
      out.add(packed.fixed32Float());
    }
  }

  private static void expect(int type, int expected, String name) {
    if (type != expected) {
      throw new IllegalArgumentException(
          "field " + name + " has wire type " + type + " where Datum has " + expected);
    }
  }

  /** {@link #shape(Decode, String)} decoding encoded images natively. */
  public DatumShape shape(String where) {
    return shape(Decode.NATIVE, where);
  }

  /**
   * The example shape this Datum gives: its fields for a raw Datum, checked against the length of
   * its data; the decoded image's for an encoded one (the image is decoded).
   *
   * @throws IllegalArgumentException naming {@code where}: a shape that does not match the data, no
   *     data, or an image that does not decode
   */
  public DatumShape shape(Decode decode, String where) {
    if (encoded) {
      return EncodedImage.decode(data, decode, where).shape();
    }
    return rawShape(where);
  }

  private DatumShape rawShape(String where) {
    if (channels < 1 || height < 1 || width < 1) {
      throw new IllegalArgumentException(
          where
              + ": a raw Datum with shape "
              + channels
              + "x"
              + height
              + "x"
              + width
              + "; channels, height and width must be positive");
    }
    DatumShape shape = new DatumShape(channels, height, width);
    long have = data.length > 0 ? data.length : floatData.length;
    String field = data.length > 0 ? "data bytes" : "float_data values";
    if (data.length == 0 && floatData.length == 0) {
      throw new IllegalArgumentException(
          where + ": a Datum of shape " + shape + " has neither data nor float_data");
    }
    if (have != shape.size()) {
      throw new IllegalArgumentException(
          String.format(
              "%s: a Datum of shape %s (%d values) has %d %s",
              where, shape, shape.size(), have, field));
    }
    return shape;
  }

  /** {@link #toChw(Decode, String)} decoding encoded images natively. */
  public float[] toChw(String where) {
    return toChw(Decode.NATIVE, where);
  }

  /**
   * The example's values, channels x height x width, as Caffe's DataTransformer reads them before
   * scaling and mean subtraction: raw {@code data} bytes as unsigned values 0-255, {@code
   * float_data} as it is (used when there are no data bytes), an encoded image decoded by OpenCV
   * (B, G, R channel order) and turned from interleaved rows into planes.
   */
  public float[] toChw(Decode decode, String where) {
    if (encoded) {
      return EncodedImage.decode(data, decode, where).chw();
    }
    rawShape(where);
    if (data.length == 0) {
      return floatData.clone();
    }
    float[] out = new float[data.length];
    for (int i = 0; i < data.length; i++) {
      out[i] = data[i] & 0xff;
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Datum d
        && channels == d.channels
        && height == d.height
        && width == d.width
        && label == d.label
        && encoded == d.encoded
        && Arrays.equals(data, d.data)
        && Arrays.equals(floatData, d.floatData);
  }

  @Override
  public int hashCode() {
    int h = Arrays.hashCode(data);
    h = 31 * h + Arrays.hashCode(floatData);
    return 31 * h + ((channels * 31 + height) * 31 + width) * 31 + label + (encoded ? 1 : 0);
  }

  @Override
  public String toString() {
    return String.format(
        "Datum[%dx%dx%d, %d data bytes, %d float_data, label %d%s]",
        channels, height, width, data.length, floatData.length, label, encoded ? ", encoded" : "");
  }

  /** A growable float array for float_data. */
  private static final class FloatList {
    private float[] a = new float[16];
    private int n;

    void add(float f) {
      if (n == a.length) {
        a = Arrays.copyOf(a, n * 2);
      }
      a[n++] = f;
    }

    float[] toArray() {
      return Arrays.copyOf(a, n);
    }
  }
}
