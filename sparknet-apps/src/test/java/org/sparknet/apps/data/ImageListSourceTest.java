package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.PythonScript;

/**
 * Caffe's ImageData lists over PNGs of known pixels written by PIL (write_images.py): three RGB
 * images (one named with a space, one in a subfolder) and two grey ones, all 6 x 4, read in colour
 * and grey, at their size and resized to 3 x 5 and 7 x 9, compared value by value with what
 * OpenCV's Python binding (python3-opencv 4.6, cv2.imread and cv2.resize) gave for the same files
 * (image_list_reference.txt, written by write_images.py's "reference" mode).
 *
 * <p>Mutations seen red, each named at the test it broke: planes in R, G, B order; grey ignored;
 * nearest-neighbour resizing; a split at the first space ("line 1 has label '0.png 3', which is not
 * an integer" in every test reading the five images); no existence check on the driver
 * (aMissingImageIsNamedWithItsLine: nothing thrown); no size check
 * (anotherSizeWithoutAResizeIsNamed: nothing thrown); the seed's order ignored on the executors
 * (valuesAreScaled...: "seed 11 moves some line" false).
 */
class ImageListSourceTest {
  @TempDir static Path dir;
  @TempDir Path tmp;

  /** "name is_color new_height new_width" to OpenCV's values in C x H x W. */
  private static final Map<String, float[]> REFERENCE = new HashMap<>();

  private static final List<String> NAMES =
      List.of("colour/a 0.png", "colour/b.png", "colour/sub/c.png", "grey/g0.png", "grey/g1.png");
  private static final int[] LABELS = {3, 1, 7, 0, 2};

  /** OpenCV's one-time native allocation on first use, paid before the leak check's snapshots. */
  static void loadOpenCvOnce() {
    try (org.bytedeco.opencv.opencv_core.Mat m =
            new org.bytedeco.opencv.opencv_core.Mat(
                2, 2, org.bytedeco.opencv.global.opencv_core.CV_8UC1);
        org.bytedeco.javacpp.BytePointer buf = new org.bytedeco.javacpp.BytePointer()) {
      org.bytedeco.opencv.global.opencv_imgcodecs.imencode(".png", m, buf);
      byte[] png = new byte[(int) buf.limit()];
      buf.get(png);
      OpenCvImage.decode(png, false, 0, 0);
      OpenCvImage.decode(png, true, 3, 3);
    }
  }

  @BeforeAll
  static void writeImages() throws Exception {
    loadOpenCvOnce();
    PythonScript.run("/caffe-data/write_images.py", dir, dir.toString());
    try (InputStream in =
        ImageListSourceTest.class.getResourceAsStream("/caffe-data/image_list_reference.txt")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String[] f = line.split("\t");
        String[] v = f[4].split(" ");
        float[] values = new float[v.length];
        for (int i = 0; i < v.length; i++) {
          values[i] = Integer.parseInt(v[i]);
        }
        REFERENCE.put(f[0] + " " + f[1] + " " + f[2] + " " + f[3], values);
      }
    }
  }

  private Path list(String... lines) throws Exception {
    return Files.writeString(tmp.resolve("list.txt"), String.join("\n", lines) + "\n");
  }

  /** The five images with their labels, relative to root_folder. */
  private Path fiveImages() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < NAMES.size(); i++) {
      lines.add(NAMES.get(i) + " " + LABELS[i]);
    }
    return list(lines.toArray(String[]::new));
  }

  private static String root() {
    return dir + "/";
  }

  private void assertReference(boolean color, int h, int w) throws Exception {
    ImageListSource src = ImageListSource.open(fiveImages(), root(), h, w, color);
    int c = color ? 3 : 1;
    int oh = h == 0 ? 4 : h;
    int ow = w == 0 ? 6 : w;
    assertEquals(List.of(c, oh, ow), src.sampleShape());
    assertEquals(5, src.count());
    List<Example> all = new ArrayList<>(src.read(0, 2, 1f, ImageTransform.NONE));
    all.addAll(src.read(2, 5, 1f, ImageTransform.NONE));
    for (int i = 0; i < 5; i++) {
      String key = NAMES.get(i) + " " + (color ? 1 : 0) + " " + h + " " + w;
      float[] want = REFERENCE.get(key);
      assertNotNull(want, key);
      assertEquals(LABELS[i], all.get(i).label(), key);
      float[] got = all.get(i).features();
      assertEquals(want.length, got.length, key);
      for (int j = 0; j < want.length; j++) {
        assertEquals(want[j], got[j], key + " value " + j);
      }
    }
  }

  /** Planes in R, G, B order failed here: value 0 expected 200 (B), was 0 (R). */
  @Test
  void colourAtTheImagesSize() throws Exception {
    assertReference(true, 0, 0);
    // the reference itself: B, G, R planes of the formula write_images.py drew with
    float[] b = REFERENCE.get("colour/b.png 1 0 0");
    int x = 4;
    int y = 2;
    assertEquals((13 + 61 * x + 17 * y + 200) % 256, b[y * 6 + x]);
    assertEquals((91 + 7 * x + 53 * y + 100) % 256, b[24 + y * 6 + x]);
    assertEquals((37 + 11 * x + 29 * y) % 256, b[48 + y * 6 + x]);
  }

  /** Decoding in colour whatever is_color says failed here: shape [3, 4, 6], not [1, 4, 6]. */
  @Test
  void greyAtTheImagesSize() throws Exception {
    assertReference(false, 0, 0);
  }

  /**
   * Resizing by nearest neighbour instead of linearly failed here: value 0 of a 0.png at 3 x 5
   * expected 183, was 200; planes in R, G, B order: expected 183, was 6.
   */
  @Test
  void colourAndGreyResizedAsOpenCvResizes() throws Exception {
    assertReference(true, 3, 5);
    assertReference(false, 3, 5);
    assertReference(true, 7, 9);
    assertReference(false, 7, 9);
  }

  @Test
  void valuesAreScaledAndShuffledLinesKeepTheirLabels() throws Exception {
    ImageListSource src = ImageListSource.open(fiveImages(), root(), 0, 0, true);
    float[] want = REFERENCE.get("colour/b.png 1 0 0");
    assertEquals(want[5] * 0.5f, src.read(1, 2, 0.5f, ImageTransform.NONE).get(0).features()[5]);
    ImageListSource shuffled = src.shuffled(11);
    List<Example> s = shuffled.read(0, 5, 1f, ImageTransform.NONE);
    List<Example> plain = src.read(0, 5, 1f, ImageTransform.NONE);
    boolean moved = false;
    for (int i = 0; i < 5; i++) {
      int k = indexOf(plain, s.get(i));
      assertTrue(k >= 0, "shuffled example " + i + " is one of the images");
      assertEquals(LABELS[k], s.get(i).label(), "its label came with it");
      moved |= k != i;
    }
    assertTrue(moved, "seed 11 moves some line");
  }

  private static int indexOf(List<Example> all, Example e) {
    for (int i = 0; i < all.size(); i++) {
      if (java.util.Arrays.equals(all.get(i).features(), e.features())) {
        return i;
      }
    }
    return -1;
  }

  private String openFails(String root, int h, int w, String... lines) throws Exception {
    Path l = list(lines);
    return assertThrows(
            IllegalArgumentException.class, () -> ImageListSource.open(l, root, h, w, true))
        .getMessage();
  }

  private String readFails(String... lines) throws Exception {
    ImageListSource src = ImageListSource.open(list(lines), root(), 0, 0, true);
    return assertThrows(
            IllegalArgumentException.class, () -> src.read(0, src.count(), 1f, ImageTransform.NONE))
        .getMessage();
  }

  @Test
  void aLineWithoutALabelIsNamed() throws Exception {
    String m = openFails(root(), 0, 0, "colour/b.png 1", "colour/sub/c.png");
    assertTrue(
        m.startsWith("Image list " + StoragePath.of(tmp.resolve("list.txt")) + " line 2"), m);
    assertTrue(m.contains("has no label"), m);
    m = openFails(root(), 0, 0, "colour/b.png one");
    assertTrue(m.contains("line 1 has label 'one', which is not an integer"), m);
  }

  @Test
  void aMissingImageIsNamedWithItsLine() throws Exception {
    String m = openFails(root(), 0, 0, "colour/b.png 1", "colour/nope.png 2");
    assertTrue(m.contains(" line 2 names " + root() + "colour/nope.png, but "), m);
    assertTrue(m.contains("does not exist"), m);
    m = openFails(root(), 0, 0, "missing-folder/x.png 2");
    assertTrue(m.contains(" line 1 names "), m);
    m = openFails(dir.toString(), 0, 0, "colour/b.png 1");
    assertTrue(m.contains("end it with '/'"), m);
  }

  @Test
  void anUndecodableImageIsNamed() throws Exception {
    String m = openFails(root(), 0, 0, "colour/broken.png 1");
    assertTrue(
        m.startsWith("Cannot decode image " + StoragePath.of(dir.resolve("colour/broken.png"))), m);
    assertTrue(m.contains(" line 1): OpenCV's imdecode recognises no image format"), m);
    m = readFails("colour/b.png 1", "colour/broken.png 1");
    assertTrue(m.contains("broken.png (list ") && m.contains(" line 2)"), m);
  }

  /** Without a resize, an image of another size fails naming it and the first image. */
  @Test
  void anotherSizeWithoutAResizeIsNamed() throws Exception {
    String m = readFails("colour/b.png 1", "grey/g0.png 0", "other/big.png 4");
    assertTrue(m.startsWith("Image " + StoragePath.of(dir.resolve("other/big.png"))), m);
    assertTrue(m.contains("line 3) is 7x5 but the list's first image"), m);
    assertTrue(m.contains("b.png is 6x4"), m);
    // resized, the same list reads
    Path l = tmp.resolve("list.txt");
    assertEquals(
        3, ImageListSource.open(l, root(), 4, 6, true).read(0, 3, 1f, ImageTransform.NONE).size());
  }

  @Test
  void newSizesMustBeSetTogetherAndAnEmptyListIsRefused() throws Exception {
    assertTrue(openFails(root(), 3, 0, "colour/b.png 1").contains("set both (> 0) to resize"));
    assertTrue(openFails(root(), 0, 0, "", " ").contains("is empty"));
  }
}
