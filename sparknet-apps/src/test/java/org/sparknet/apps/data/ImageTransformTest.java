package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Crop and mirror as Caffe's DataTransformer does them, on images filled with their indices. */
class ImageTransformTest {
  /** 2 channels x 5 rows x 6 columns; each value is its flat index. */
  private static float[] image() {
    float[] a = new float[2 * 5 * 6];
    for (int i = 0; i < a.length; i++) {
      a[i] = i;
    }
    return a;
  }

  @Test
  void testPhaseCropsTheCentreWithoutFlipping() {
    ImageTransform t = new ImageTransform(3, true, false, 7);
    float[] out = t.apply(image(), 2, 5, 6, 0);
    // rows 1..3, columns 1..3 ((6 - 3) / 2 = 1) of each channel
    assertArrayEquals(
        new float[] {7, 8, 9, 13, 14, 15, 19, 20, 21, 37, 38, 39, 43, 44, 45, 49, 50, 51}, out);
  }

  @Test
  void trainPhaseCropsAtRandomOffsetsReproduciblyAndFlipsSome() {
    ImageTransform t = new ImageTransform(3, true, true, 7);
    Set<Float> corners = new HashSet<>();
    int flipped = 0;
    for (long i = 0; i < 200; i++) {
      float[] out = t.apply(image(), 2, 5, 6, i);
      assertArrayEquals(out, t.apply(image(), 2, 5, 6, i), "same seed and index, same draw");
      boolean flip = out[0] > out[1];
      float left = flip ? out[2] : out[0];
      int y = (int) left / 6;
      int x = (int) left % 6;
      assertTrue(y <= 2 && x <= 3, "crop inside the image: " + left);
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          float expected = (y + r) * 6 + x + (flip ? 2 - c : c);
          assertEquals(expected, out[r * 3 + c]);
          assertEquals(expected + 30, out[9 + r * 3 + c], "channel 1 crops the same window");
        }
      }
      corners.add(left);
      flipped += flip ? 1 : 0;
    }
    assertEquals(12, corners.size(), "every one of the 3 x 4 offsets is drawn");
    assertTrue(flipped > 60 && flipped < 140, "about half are mirrored: " + flipped);
  }

  @Test
  void mirrorWithoutCropFlipsEachRow() {
    ImageTransform t = new ImageTransform(0, true, true, 1);
    int flips = 0;
    for (long i = 0; i < 20; i++) {
      float[] out = t.apply(image(), 2, 5, 6, i);
      if (out[0] == 5f) {
        flips++;
        assertEquals(0f, out[5]);
        assertEquals(35f, out[30]);
      } else {
        assertEquals(0f, out[0]);
      }
    }
    assertTrue(flips > 0 && flips < 20);
  }

  @Test
  void nothingToDoReturnsTheInput() {
    float[] a = image();
    assertSame(a, ImageTransform.NONE.apply(a, 2, 5, 6, 3));
    assertSame(a, new ImageTransform(0, true, false, 1).apply(a, 2, 5, 6, 3));
  }

  @Test
  void aCropLargerThanTheImageIsRejected() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ImageTransform(227, false, true, 0).check(200, 300, "folder x"));
    assertTrue(e.getMessage().contains("crop_size 227") && e.getMessage().contains("200x300"));
  }
}
