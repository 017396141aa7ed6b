package org.sparknet.apps.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Path;
import javax.imageio.ImageIO;

/** Checks that a PNG decodes and has the size the code promised. */
public final class Pngs {
  private Pngs() {}

  /** The decoded image of {@code png}; fails when it does not decode. */
  public static BufferedImage decode(byte[] png) throws IOException {
    BufferedImage img = ImageIO.read(new ByteArrayInputStream(png));
    assertNotNull(img, "the PNG does not decode");
    return img;
  }

  /** The decoded image of the file {@code png}; fails unless it decodes at width x height. */
  public static BufferedImage assertPng(Path png, int width, int height) throws IOException {
    BufferedImage img = ImageIO.read(png.toFile());
    assertNotNull(img, png + " does not decode as an image");
    assertEquals(width, img.getWidth(), png + " width");
    assertEquals(height, img.getHeight(), png + " height");
    return img;
  }
}
