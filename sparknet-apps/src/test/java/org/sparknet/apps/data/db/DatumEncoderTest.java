package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The hand-written Datum encoder against the reader and against bytes protobuf writes. The
 * independent check (Python decoding what Caffe stored) is CaffeDbConvertIT's.
 */
class DatumEncoderTest {
  private static final DatumShape SHAPE = new DatumShape(1, 2, 3);

  /**
   * protobuf's serialization of Datum{channels:1 height:2 width:3 data:"\0\1\2\3\xfe\xff" label:7},
   * field by field. An encoder that wrote the label before data failed with "array contents differ
   * at index [6], expected: <34> but was: <40>".
   */
  @Test
  void bytesAsProtobufWritesThem() {
    byte[] want = {8, 1, 16, 2, 24, 3, 34, 6, 0, 1, 2, 3, (byte) 254, (byte) 255, 40, 7};
    assertArrayEquals(
        want, DatumEncoder.encode(SHAPE, new float[] {0, 1, 2, 3, 254, 255}, 7, "example 0"));
  }

  @Test
  void nonBytesBecomeFloatData() {
    float[] values = {0, 1, 2, 3, 256, 0.5f};
    Datum d = Datum.parse(DatumEncoder.encode(SHAPE, values, -3, "example 0"), "example 0");
    assertEquals(0, d.data().length);
    assertArrayEquals(values, d.floatData());
    assertEquals(-3, d.label());
    assertEquals(SHAPE, d.shape("example 0"));
    float[] negative = {0, 1, 2, 3, 4, -1};
    Datum n = Datum.parse(DatumEncoder.encode(SHAPE, negative, 0, "x"), "x");
    assertArrayEquals(negative, n.toChw("x"));
  }

  @Test
  void wrongLengthNamesTheExample() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DatumEncoder.encode(SHAPE, new float[5], 0, "example 9"));
    assertTrue(e.getMessage().startsWith("example 9 has 5 values"), e.getMessage());
  }
}
