package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.CliFixtures;

/** Caffe mean files (binary BlobProto) read in Java, in both ways Caffe writes the dimensions. */
class MeanImageTest {
  @TempDir Path tmp;

  private static float[] ramp(int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = i * 0.5f;
    }
    return a;
  }

  @Test
  void readsLegacyDimensionsAndPackedData() throws Exception {
    Path f = CliFixtures.meanFile(tmp.resolve("mean.binaryproto"), 3, 4, 5, ramp(60));
    MeanImage m = MeanImage.read(f);
    assertEquals(3, m.channels());
    assertEquals(4, m.height());
    assertEquals(5, m.width());
    assertArrayEquals(ramp(60), m.data());
    float[] img = new float[60];
    Arrays.fill(img, 10f);
    m.subtractFrom(img);
    assertEquals(10f, img[0]);
    assertEquals(10f - 29.5f, img[59]);
  }

  @Test
  void readsAShapeFieldAndUnpackedFloats() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream shape = new ByteArrayOutputStream();
    for (long d : new long[] {1, 2, 2, 3}) {
      CliFixtures.varint(shape, 1 << 3); // dim, unpacked int64
      CliFixtures.varint(shape, d);
    }
    CliFixtures.varint(out, (7 << 3) | 2);
    CliFixtures.varint(out, shape.size());
    out.write(shape.toByteArray());
    for (float v : ramp(12)) {
      CliFixtures.varint(out, (5 << 3) | 5);
      out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(v).array());
    }
    Path f = Files.write(tmp.resolve("m.binaryproto"), out.toByteArray());
    MeanImage m = MeanImage.read(f);
    assertEquals(2, m.channels());
    assertEquals(2, m.height());
    assertEquals(3, m.width());
    assertArrayEquals(ramp(12), m.data());
  }

  @Test
  void aTruncatedFileOrAWrongCountIsNamed() throws Exception {
    Path f = CliFixtures.meanFile(tmp.resolve("mean.binaryproto"), 3, 4, 5, ramp(60));
    byte[] all = Files.readAllBytes(f);
    Files.write(f, Arrays.copyOf(all, all.length - 7));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> MeanImage.read(f));
    assertTrue(e.getMessage().startsWith("Mean file " + StoragePath.of(f)), e.getMessage());

    Path g = CliFixtures.meanFile(tmp.resolve("short.binaryproto"), 3, 4, 5, ramp(59));
    e = assertThrows(IllegalArgumentException.class, () -> MeanImage.read(g));
    assertTrue(e.getMessage().contains("declares 1 x 3 x 4 x 5 but holds 59 values"));

    Path missing = tmp.resolve("none.binaryproto");
    e = assertThrows(IllegalArgumentException.class, () -> MeanImage.read(missing));
    assertEquals("Mean file " + StoragePath.of(missing) + " does not exist", e.getMessage());
  }

  @Test
  void aMeanOfAnotherSizeIsRejected() throws Exception {
    MeanImage m = MeanImage.read(CliFixtures.meanFile(tmp.resolve("m"), 3, 4, 5, ramp(60)));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> m.check(3, 32, 32, "the images"));
    assertTrue(e.getMessage().contains("3x4x5 but the images are 3x32x32"), e.getMessage());
  }
}
