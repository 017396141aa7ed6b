package org.sparknet.apps.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BandedSampleModel;
import java.awt.image.DataBuffer;
import java.awt.image.Raster;
import java.awt.image.WritableRaster;
import java.io.ByteArrayOutputStream;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageWriter;
import javax.imageio.stream.ImageOutputStream;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.ShortPointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.testing.CliFixtures;

/**
 * Images decoded as Caffe's convert_imageset decodes them (OpenCV imdecode in colour, linear
 * resize): a grey JPEG, a PNG with alpha, a 16-bit PNG and a CMYK JPEG, made from a Fashion-MNIST
 * image with OpenCV's imencode (the first three) and ImageIO's JPEG writer (four components), all
 * come back as that image in three equal B, G, R planes. With the javax.imageio decoder in place of
 * OpenCV, the PNG with alpha came back composited over black (pixel 96: 1 became 0); the other
 * three passed there too.
 */
class ImageDecodingTest {
  private static final int SIDE = 28;
  private static final byte[] PIXELS = firstImage();

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

  private static byte[] firstImage() {
    byte[] all = CliFixtures.fashionMnistTrain(1)[0];
    return java.util.Arrays.copyOf(all, SIDE * SIDE);
  }

  private static byte[] encode(String ext, Mat m) {
    try (BytePointer buf = new BytePointer()) {
      assertTrue(opencv_imgcodecs.imencode(ext, m, buf), "OpenCV encodes " + ext);
      byte[] out = new byte[(int) buf.limit()];
      buf.get(out);
      return out;
    }
  }

  /** Asserts three planes equal to each other and within {@code tol} of the source pixels. */
  private static void assertGreyImage(float[] chw, float tol, String what) {
    int plane = SIDE * SIDE;
    assertEquals(3 * plane, chw.length, what);
    for (int i = 0; i < plane; i++) {
      float g = PIXELS[i] & 0xff;
      assertEquals(chw[i], chw[plane + i], 1f, what + ": B == G at " + i);
      assertEquals(chw[i], chw[2 * plane + i], 1f, what + ": B == R at " + i);
      assertEquals(g, chw[i], tol, what + ": pixel " + i);
    }
  }

  @Test
  void greyJpegDecodesIntoThreeEqualPlanes() {
    try (Mat m = new Mat(SIDE, SIDE, opencv_core.CV_8UC1);
        BytePointer data = m.data()) {
      data.put(PIXELS);
      byte[] jpg = encode(".jpg", m);
      assertGreyImage(ImageFolder.decode(jpg, "grey.jpg", SIDE, SIDE, 1f, false), 40f, "jpeg");
    }
  }

  @Test
  void pngWithAlphaDropsTheAlpha() {
    byte[] bgra = new byte[SIDE * SIDE * 4];
    for (int i = 0; i < SIDE * SIDE; i++) {
      bgra[4 * i] = PIXELS[i];
      bgra[4 * i + 1] = PIXELS[i];
      bgra[4 * i + 2] = PIXELS[i];
      bgra[4 * i + 3] = (byte) (i % 256); // every alpha from 0 to 255
    }
    try (Mat m = new Mat(SIDE, SIDE, opencv_core.CV_8UC4);
        BytePointer data = m.data()) {
      data.put(bgra);
      byte[] png = encode(".png", m);
      assertGreyImage(ImageFolder.decode(png, "alpha.png", SIDE, SIDE, 1f, false), 0f, "alpha");
    }
  }

  @Test
  void sixteenBitPngBecomesItsHighBytes() {
    short[] bgr = new short[SIDE * SIDE * 3];
    for (int i = 0; i < bgr.length; i++) {
      bgr[i] = (short) ((PIXELS[i / 3] & 0xff) * 257);
    }
    try (Mat m = new Mat(SIDE, SIDE, opencv_core.CV_16UC3);
        ShortPointer data = new ShortPointer(m.data())) {
      data.put(bgr);
      byte[] png = encode(".png", m);
      assertGreyImage(ImageFolder.decode(png, "deep.png", SIDE, SIDE, 1f, false), 0f, "16-bit");
    }
  }

  @Test
  void cmykJpegDecodes() throws Exception {
    // A four-component (CMYK) JPEG. OpenCV reads CMYK as Adobe's inverted ink (255 = none), as
    // Photoshop writes it: C = M = Y = the grey and K = 255 come back as that grey.
    WritableRaster r =
        Raster.createWritableRaster(
            new BandedSampleModel(DataBuffer.TYPE_BYTE, SIDE, SIDE, 4), null);
    for (int i = 0; i < SIDE * SIDE; i++) {
      for (int band = 0; band < 3; band++) {
        r.setSample(i % SIDE, i / SIDE, band, PIXELS[i] & 0xff);
      }
      r.setSample(i % SIDE, i / SIDE, 3, 255);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ImageWriter w = ImageIO.getImageWritersByFormatName("jpeg").next();
    try (ImageOutputStream out = ImageIO.createImageOutputStream(bytes)) {
      w.setOutput(out);
      w.write(null, new IIOImage(r, null, null), w.getDefaultWriteParam());
    } finally {
      w.dispose();
    }
    float[] chw = ImageFolder.decode(bytes.toByteArray(), "cmyk.jpg", SIDE, SIDE, 1f, false);
    // Four lossy channels through two colour conversions: the picture, not each pixel, survives.
    int plane = SIDE * SIDE;
    double[] x = new double[plane];
    double[] y = new double[plane];
    for (int i = 0; i < plane; i++) {
      x[i] = PIXELS[i] & 0xff;
      y[i] = chw[i];
      assertEquals(chw[i], chw[plane + i], 1f, "cmyk: B == G at " + i);
      assertEquals(chw[i], chw[2 * plane + i], 1f, "cmyk: B == R at " + i);
    }
    double corr = correlation(x, y);
    assertTrue(corr > 0.9, "cmyk: correlation with the source " + corr);
  }

  private static double correlation(double[] x, double[] y) {
    double mx = java.util.Arrays.stream(x).average().orElse(0);
    double my = java.util.Arrays.stream(y).average().orElse(0);
    double sxy = 0;
    double sxx = 0;
    double syy = 0;
    for (int i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) * (x[i] - mx);
      syy += (y[i] - my) * (y[i] - my);
    }
    return sxy / Math.sqrt(sxx * syy);
  }
}
