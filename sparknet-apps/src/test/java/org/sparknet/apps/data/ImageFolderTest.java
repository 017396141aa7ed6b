package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.testing.CliFixtures;

/** Listing and decoding image folders (PNG and JPEG written from Fashion-MNIST images). */
class ImageFolderTest {
  @TempDir Path tmp;

  /** OpenCV's one-time native allocation on first use, paid before the leak check's snapshots. */
  @BeforeAll
  static void loadOpenCvOnce() {
    try (org.bytedeco.opencv.opencv_core.Mat m =
            new org.bytedeco.opencv.opencv_core.Mat(
                2, 2, org.bytedeco.opencv.global.opencv_core.CV_8UC1);
        org.bytedeco.javacpp.BytePointer buf = new org.bytedeco.javacpp.BytePointer()) {
      org.bytedeco.opencv.global.opencv_imgcodecs.imencode(".png", m, buf);
      byte[] png = new byte[(int) buf.limit()];
      buf.get(png);
      ImageFolder.decode(png, "warm-up.png", 2, 2, 1f, false);
    }
  }

  @Test
  void classesAreTheSortedSubfolderNames() throws Exception {
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {9, 1}, 3, 40);
    Files.writeString(root.resolve("class_1/README.txt"), "not an image, ignored");
    ImageFolder f = ImageFolder.open(root);
    assertEquals(List.of("class_1", "class_9"), f.classes());
    assertEquals(6, f.count());
    assertTrue(f.labelled());
  }

  @Test
  void decodesToBgrPlanesScaledAndResized() throws Exception {
    BufferedImage img = new BufferedImage(2, 1, BufferedImage.TYPE_INT_RGB);
    img.setRGB(0, 0, 0xff0000); // red
    img.setRGB(1, 0, 0x0000ff); // blue
    Path p = tmp.resolve("rb.png");
    ImageIO.write(img, "png", p.toFile());
    float[] chw = ImageFolder.decode(p.toString(), 1, 2, 0.5f, false);
    // channel 0 = B, 1 = G, 2 = R; each plane 1 x 2
    assertEquals(6, chw.length);
    assertEquals(0f, chw[0]); // B of the red pixel
    assertEquals(127.5f, chw[1]); // B of the blue pixel
    assertEquals(0f, chw[2]);
    assertEquals(0f, chw[3]);
    assertEquals(127.5f, chw[4]); // R of the red pixel
    assertEquals(0f, chw[5]);
    float[] big = ImageFolder.decode(p.toString(), 8, 16, 1f, false);
    assertEquals(3 * 8 * 16, big.length);
    assertEquals(255f, big[2 * 128 + 0], "R at the left edge after resizing");
    assertEquals(255f, big[0 * 128 + 15], "B at the right edge after resizing");
  }

  @Test
  void greyPngAndJpegDecodeIntoThreeEqualPlanes() throws Exception {
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {0}, 2, 32);
    for (String name : List.of("png", "jpg")) {
      Path file;
      try (var s = Files.list(root.resolve("class_0"))) {
        file = s.filter(x -> x.toString().endsWith(name)).findFirst().orElseThrow();
      }
      float[] chw = ImageFolder.decode(file.toString(), 32, 32, 1f, false);
      float sum = 0;
      for (int i = 0; i < 1024; i++) {
        assertEquals(chw[i], chw[1024 + i], 2f, name + " grey: B == G");
        assertEquals(chw[i], chw[2048 + i], 2f, name + " grey: B == R");
        sum += chw[i];
      }
      assertTrue(sum > 1024 * 10, name + " is not blank");
    }
  }

  @Test
  void anUndecodableImageIsNamedOrSkipped() throws Exception {
    Path bad = tmp.resolve("broken.jpg");
    Files.write(bad, new byte[] {1, 2, 3, 4, 5});
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ImageFolder.decode(bad.toString(), 8, 8, 1f, false));
    assertTrue(
        e.getMessage().startsWith("Cannot decode image " + StoragePath.of(bad)), e.getMessage());
    assertTrue(e.getMessage().contains("--skip-bad-images"), e.getMessage());
    assertNull(ImageFolder.decode(bad.toString(), 8, 8, 1f, true));
  }

  @Test
  void anEmptyClassFolderIsNamed() throws Exception {
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {3}, 2, 16);
    Path empty = Files.createDirectories(root.resolve("class_7"));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ImageFolder.open(root));
    assertTrue(
        e.getMessage().startsWith("Class folder " + StoragePath.of(empty) + " holds no images"));
  }

  @Test
  void aMissingFolderAndAnEmptyOneAreNamed() throws Exception {
    Path missing = tmp.resolve("nope");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ImageFolder.open(missing));
    assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());
    Path empty = Files.createDirectories(tmp.resolve("empty"));
    e = assertThrows(IllegalArgumentException.class, () -> ImageFolder.open(empty));
    assertTrue(e.getMessage().contains("neither class subfolders nor images"), e.getMessage());
  }

  @Test
  void aFolderOfImagesWithoutSubfoldersIsUnlabelled() throws Exception {
    Path root = CliFixtures.imageFolder(tmp.resolve("imgs"), new int[] {5}, 3, 16);
    ImageFolder f = ImageFolder.open(root.resolve("class_5"));
    assertFalse(f.labelled());
    assertEquals(3, f.count());
    assertEquals(List.of(), f.classes());
  }
}
