package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.seconds;

import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.data.ImageFolder;

/**
 * Part (c) of the storage section: images/s of the image-folder decoder ({@link
 * ImageFolder#decode(byte[], String, int, int, float, boolean)}: OpenCV's {@code imdecode} in
 * colour, then a linear {@code resize}, into Caffe's BGR planes) against {@code javax.imageio} with
 * a bilinear Java2D resize into the same planes (the decoder SparkNet had before), on the same
 * files, one thread, each file's bytes read from local disk in the timed loop. The files are
 * Fashion-MNIST training images tinted into colour (R = p, G = 3p/4, B = 255 - p, so that JPEG's
 * chroma is not constant) written as JPEG and PNG by {@code javax.imageio}, at 28x28 and scaled up
 * (bilinear) to 224x224.
 */
final class ImageDecodeRates {
  /** One set of files: format, file side, the decoded side, and the files. */
  record FileSet(String format, int side, int outSide, List<Path> files) {}

  /** Seconds per pass over a set with each decoder, one entry per repetition. */
  record Times(FileSet set, List<Double> opencv, List<Double> imageio) {}

  private ImageDecodeRates() {}

  /**
   * Writes {@code small} 28x28 and {@code large} 224x224 images of {@code train} as JPEG and PNG
   * under {@code dir}; the large ones decode to 227x227 (CaffeNet's input), the small to 28x28.
   */
  static List<FileSet> write(IdxDataset train, Path dir, int small, int large) throws IOException {
    List<FileSet> sets = new ArrayList<>();
    for (String format : List.of("jpg", "png")) {
      sets.add(write(train, dir, format, 28, 28, small));
      sets.add(write(train, dir, format, 224, 227, large));
    }
    return sets;
  }

  private static FileSet write(
      IdxDataset train, Path dir, String format, int side, int outSide, int count)
      throws IOException {
    Path d = Files.createDirectories(dir.resolve(format + "-" + side));
    List<Path> files = new ArrayList<>();
    var examples = train.read(0, count, 1f);
    for (int i = 0; i < count; i++) {
      BufferedImage img = tinted(examples.get(i).features());
      if (side != 28) {
        img = bilinear(img, side, side, BufferedImage.TYPE_INT_RGB);
      }
      Path f = d.resolve(String.format(Locale.ROOT, "%05d.%s", i, format));
      if (!ImageIO.write(img, format.equals("jpg") ? "jpeg" : format, f.toFile())) {
        throw new IllegalStateException("javax.imageio has no writer for " + format);
      }
      files.add(f);
    }
    return new FileSet(format.equals("jpg") ? "JPEG" : "PNG", side, outSide, files);
  }

  private static BufferedImage tinted(float[] grey) {
    BufferedImage img = new BufferedImage(28, 28, BufferedImage.TYPE_INT_RGB);
    for (int i = 0; i < grey.length; i++) {
      int p = (int) grey[i];
      img.setRGB(i % 28, i / 28, (p << 16) | ((p * 3 / 4) << 8) | (255 - p));
    }
    return img;
  }

  /**
   * Decodes every set {@code repeats} times with each decoder, in turns, after one unmeasured pass
   * each (the JIT, OpenCV's first use).
   */
  static List<Times> measure(List<FileSet> sets, int repeats) {
    List<Times> out = new ArrayList<>();
    for (FileSet s : sets) {
      pass(s, true);
      pass(s, false);
      Times t = new Times(s, new ArrayList<>(), new ArrayList<>());
      for (int r = 0; r < repeats; r++) {
        t.opencv().add(pass(s, true));
        t.imageio().add(pass(s, false));
      }
      BenchRun.log(
          "storage images %s %d: opencv %s s, imageio %s s",
          s.format(), s.side(), t.opencv(), t.imageio());
      out.add(t);
    }
    return out;
  }

  private static double pass(FileSet s, boolean opencv) {
    long t0 = System.nanoTime();
    double checksum = 0;
    for (Path f : s.files()) {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(f);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      float[] chw =
          opencv
              ? ImageFolder.decode(bytes, f.toString(), s.outSide(), s.outSide(), 1f, false)
              : imageio(bytes, s.outSide(), s.outSide());
      checksum += chw[chw.length / 2];
    }
    double t = seconds(t0);
    if (Double.isNaN(checksum)) {
      throw new IllegalStateException("NaN pixels decoding " + s.format());
    }
    return t;
  }

  /** javax.imageio's decode, a bilinear resize to BGR, and Caffe's planes. */
  static float[] imageio(byte[] bytes, int height, int width) {
    BufferedImage src;
    try {
      src = ImageIO.read(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (src == null) {
      throw new IllegalArgumentException("javax.imageio cannot decode " + bytes.length + " bytes");
    }
    BufferedImage bgr = bilinear(src, height, width, BufferedImage.TYPE_3BYTE_BGR);
    byte[] px = ((DataBufferByte) bgr.getRaster().getDataBuffer()).getData();
    int plane = height * width;
    float[] out = new float[3 * plane];
    for (int i = 0; i < plane; i++) {
      for (int c = 0; c < 3; c++) {
        out[c * plane + i] = px[i * 3 + c] & 0xff;
      }
    }
    return out;
  }

  private static BufferedImage bilinear(BufferedImage src, int height, int width, int type) {
    BufferedImage dst = new BufferedImage(width, height, type);
    Graphics2D g = dst.createGraphics();
    try {
      g.setRenderingHint(
          RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
      g.drawImage(src, 0, 0, width, height, null);
    } finally {
      g.dispose();
    }
    return dst;
  }
}
