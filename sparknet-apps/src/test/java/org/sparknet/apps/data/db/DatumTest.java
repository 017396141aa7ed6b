package org.sparknet.apps.data.db;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.ShortPointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;

/**
 * Datums decoded as Caffe's DataTransformer reads them: encoded PNG and JPEG records written by
 * python3-lmdb with PIL's encoders (lmdb/write_lmdbs.py, "encoded"), and hand-made bytes for the
 * wire format's edge cases and bad input.
 */
class DatumTest {
  @TempDir static Path dir;
  private static Path encoded;

  /** JPEG: OpenCV's libjpeg-turbo against PIL's, one IDCT apart at most. */
  private static final float JPEG_TOLERANCE = 2f;

  @BeforeAll
  static void write() throws Exception {
    CaffeDbs.loadOpenCv();
    encoded = CaffeDbs.write(dir, "encoded", "encoded_lmdb", 9);
  }

  /**
   * Encoded records, as convert_imageset --encoded writes them (no shape fields): colour PNGs come
   * back as their source pixels exactly, in B, G, R planes; grey PNGs as one plane (imdecode -1
   * keeps the file's channels); JPEGs within {@link #JPEG_TOLERANCE} of PIL's decode of the same
   * bytes (the reference is PIL, not OpenCV). Planes taken in R, G, B order failed record
   * '00000000' at value 174 (1 expected, 0 found); a native decode done in colour gave 3x28x28 for
   * the grey PNG '00000001'.
   */
  @Test
  void decodesEncodedPngAndJpegAsCaffeDoes() throws Exception {
    int[] labels = CaffeDbs.labels(encoded);
    try (LmdbStore store = LmdbStore.open(StoragePath.of(encoded))) {
      List<byte[][]> recs = CaffeDbs.records(store, KeyRange.ALL);
      assertEquals(9, recs.size());
      byte[] expectedAll = Files.readAllBytes(Path.of(encoded + ".expected"));
      int off = 0;
      for (int i = 0; i < recs.size(); i++) {
        String where = store.recordName(recs.get(i)[0]);
        Datum d = Datum.parse(recs.get(i)[1], where);
        assertTrue(d.encoded(), where);
        assertEquals(labels[i], d.label(), where);
        DatumShape want = i % 3 == 1 ? new DatumShape(1, 28, 28) : new DatumShape(3, 32, 32);
        assertEquals(want, d.shape(where), where);
        float[] chw = d.toChw(where);
        float tol = i % 3 == 2 ? JPEG_TOLERANCE : 0f;
        for (int p = 0; p < chw.length; p++) {
          assertEquals(expectedAll[off + p] & 0xff, chw[p], tol, where + " value " + p);
        }
        off += chw.length;
      }
      assertEquals(expectedAll.length, off);
    }
  }

  /** force_color and force_gray: a grey PNG in three equal planes, a colour PNG in one. */
  @Test
  void forcedColourAndGrey() throws Exception {
    try (LmdbStore store = LmdbStore.open(StoragePath.of(encoded))) {
      List<byte[][]> recs = CaffeDbs.records(store, KeyRange.ALL);
      Datum grey = Datum.parse(recs.get(1)[1], "grey");
      Datum colour = Datum.parse(recs.get(0)[1], "colour");
      assertEquals(new DatumShape(3, 28, 28), grey.shape(Datum.Decode.COLOR, "grey"));
      float[] g3 = grey.toChw(Datum.Decode.COLOR, "grey");
      float[] g1 = grey.toChw("grey");
      for (int c = 0; c < 3; c++) {
        for (int p = 0; p < 784; p++) {
          assertEquals(g1[p], g3[c * 784 + p], "plane " + c + " pixel " + p);
        }
      }
      assertEquals(new DatumShape(1, 32, 32), colour.shape(Datum.Decode.GRAY, "colour"));
    }
  }

  /** Field by field, unpacked float_data, an unknown fixed64 field skipped, a repeated field. */
  @Test
  void parsesTheWireFormat() {
    byte[] value = {
      0x08,
      1,
      0x10,
      1,
      0x18,
      2, // channels 1, height 1, width 2
      0x35,
      0,
      0,
      (byte) 0x80,
      0x3f, // float_data 1.0
      0x61,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8, // field 12, fixed64: skipped
      0x35,
      0,
      0,
      0,
      (byte) 0xc0, // float_data -2.0
      0x28,
      3,
      0x28,
      4 // label 3, then 4: the last wins
    };
    Datum d = Datum.parse(value, "hand-made");
    assertEquals(new DatumShape(1, 1, 2), d.shape("hand-made"));
    assertArrayEquals(new float[] {1f, -2f}, d.toChw("hand-made"));
    assertEquals(4, d.label());
    assertEquals(0, d.data().length);
  }

  /**
   * Truncated and ill-typed fields fail naming the record. Without the field length bound an
   * ArrayIndexOutOfBoundsException escaped.
   */
  @Test
  void malformedBytesNameTheRecord() {
    String where = "LMDB hdfs://nn/train_lmdb, record '00000042'";
    assertMalformed(new byte[] {0x08, (byte) 0x80}, where, "a varint at byte 1 runs past the end");
    assertMalformed(new byte[] {0x22, 9, 1, 2}, where, "claims 9 bytes, but 2 remain");
    assertMalformed(new byte[] {0x0a, 1, 1}, where, "field channels has wire type 2");
    assertMalformed(new byte[] {0x32, 3, 0, 0, 0}, where, "packed float_data of 3 bytes");
    assertMalformed(new byte[] {0x00, 1}, where, "a field tag of 0 at byte 0");
    assertMalformed(new byte[] {0x0b}, where, "field channels has wire type 3");
    assertMalformed(new byte[] {0x7b}, where, "field 15 has wire type 3, which no Datum field has");
  }

  private static void assertMalformed(byte[] value, String where, String why) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Datum.parse(value, where));
    assertTrue(e.getMessage().startsWith(where + ": not a Caffe Datum"), e.getMessage());
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }

  /**
   * The shape must match the data. Without the length check a 1x28x28 Datum with 700 bytes gave 700
   * values, which Caffe would meet with a failed CHECK.
   */
  @Test
  void shapeMustMatchTheData() {
    Datum d = new Datum(1, 28, 28, new byte[700], 0, new float[0], false);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> d.toChw("record 'x'"));
    assertEquals(
        "record 'x': a Datum of shape 1x28x28 (784 values) has 700 data bytes", e.getMessage());
    Datum none = new Datum(1, 2, 2, new byte[0], 0, new float[0], false);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> none.shape("r"))
            .getMessage()
            .contains("has neither data nor float_data"));
    Datum zero = new Datum(0, 28, 28, new byte[784], 0, new float[0], false);
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> zero.shape("r"))
            .getMessage()
            .contains("must be positive"));
  }

  @Test
  void undecodableImageNamesTheRecord() {
    Datum d = new Datum(0, 0, 0, new byte[] {1, 2, 3, 4, 5}, 0, new float[0], true);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> d.shape("record '00000007'"));
    assertTrue(e.getMessage().startsWith("record '00000007': an encoded Datum whose 5 bytes"));
  }

  /**
   * A 16-bit PNG is refused, as Caffe's DataTransformer CHECKs 8-bit images. Without the depth
   * check its samples were read as bytes, with no error.
   */
  @Test
  void sixteenBitPngRefused() {
    byte[] png;
    try (Mat m = new Mat(4, 4, opencv_core.CV_16UC1);
        ShortPointer data = new ShortPointer(m.data());
        BytePointer buf = new BytePointer()) {
      for (int i = 0; i < 16; i++) {
        data.put(i, (short) (i * 4000));
      }
      assertTrue(opencv_imgcodecs.imencode(".png", m, buf));
      png = new byte[(int) buf.limit()];
      buf.get(png);
    }
    Datum d = new Datum(0, 0, 0, png, 0, new float[0], true);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> d.toChw("record 'deep'"));
    assertTrue(
        e.getMessage().contains("16-bit samples; Caffe reads 8-bit images only"), e.getMessage());
  }
}
