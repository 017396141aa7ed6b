package org.sparknet.apps.plot;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/**
 * A picture of fixed pixel size that renders to PNG. Callers choose where the bytes go: {@link
 * #writePng(OutputStream)} takes any stream (a local file, a Hadoop {@code FileSystem} stream),
 * {@link #writePng(Path)} is the local-file convenience.
 */
public interface Figure {
  /** Width in pixels. */
  int width();

  /** Height in pixels. */
  int height();

  /** Draws the figure into a new RGB image of {@link #width()} x {@link #height()} pixels. */
  BufferedImage toImage();

  /** Writes the figure as PNG to {@code out}, which stays open. */
  default void writePng(OutputStream out) throws IOException {
    BufferedImage img = toImage();
    if (!ImageIO.write(img, "png", out)) {
      throw new IllegalStateException("This JVM has no PNG writer (javax.imageio)");
    }
  }

  /** The figure as PNG bytes. */
  default byte[] toPng() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      writePng(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
    }
    return bytes.toByteArray();
  }

  /** Writes the figure as PNG to a local file, creating its parent directories. */
  default void writePng(Path png) {
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try (OutputStream out = Files.newOutputStream(png)) {
        writePng(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write the figure " + png + ": " + e.getMessage(), e);
    }
  }

  /** A figure that is an image already (pixels, not a chart). */
  static Figure of(BufferedImage image) {
    return new Figure() {
      @Override
      public int width() {
        return image.getWidth();
      }

      @Override
      public int height() {
        return image.getHeight();
      }

      @Override
      public BufferedImage toImage() {
        return image;
      }
    };
  }
}
