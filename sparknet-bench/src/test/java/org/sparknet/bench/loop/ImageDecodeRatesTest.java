package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.data.ImageFolder;

/**
 * The storage section compares two decoders only if they produce the same thing: the javax.imageio
 * path must give the image-folder decoder's BGR planes, so that the images/s compare like with
 * like.
 */
class ImageDecodeRatesTest {
  @Test
  void javaxImageioGivesTheSameBgrPlanesAsTheOpenCvDecoderForALosslessFile() throws IOException {
    // Every pixel a different R, G and B, so a swapped channel or a transposed plane shows.
    BufferedImage img = new BufferedImage(7, 5, BufferedImage.TYPE_INT_RGB);
    for (int y = 0; y < 5; y++) {
      for (int x = 0; x < 7; x++) {
        img.setRGB(x, y, ((10 * x + y) << 16) | ((100 + 20 * y) << 8) | (200 - 3 * x - y));
      }
    }
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    ImageIO.write(img, "png", png);
    byte[] bytes = png.toByteArray();
    float[] opencv = ImageFolder.decode(bytes, "test.png", 5, 7, 1f, false);
    float[] imageio = ImageDecodeRates.imageio(bytes, 5, 7);
    // Reading the planes as R, G, B (channel 2 - c) gave 0 at index 0, where OpenCV has B = 200.
    assertArrayEquals(opencv, imageio);
    assertEquals(200f, imageio[0]); // B of pixel (0, 0) leads: Caffe's BGR order
  }

  @Test
  void bothDecodersResizeToTheAskedSize() throws IOException {
    BufferedImage img = new BufferedImage(28, 28, BufferedImage.TYPE_INT_RGB);
    ByteArrayOutputStream jpeg = new ByteArrayOutputStream();
    ImageIO.write(img, "jpeg", jpeg);
    assertEquals(3 * 227 * 227, ImageDecodeRates.imageio(jpeg.toByteArray(), 227, 227).length);
    assertEquals(
        3 * 227 * 227, ImageFolder.decode(jpeg.toByteArray(), "t.jpg", 227, 227, 1f, false).length);
  }
}
