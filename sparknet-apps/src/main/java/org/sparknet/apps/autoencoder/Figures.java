package org.sparknet.apps.autoencoder;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Ellipse2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.sparknet.api.WeightCollection;
import org.sparknet.rbm.RbmNet;

/**
 * The two figures of SINGA's dimensionality-reduction example, drawn with plain Java2D (headless):
 * the first RBM's filters as image tiles (Figure 16a) and the 2-D codes coloured by class (Figure
 * 16b).
 */
public final class Figures {
  /** Pixels per filter pixel in the filter grid. */
  public static final int FILTER_SCALE = 2;

  /** Gap between tiles, in pixels. */
  public static final int FILTER_GAP = 2;

  /** Width and height of the scatter plot. */
  public static final int SCATTER_SIZE = 720;

  private static final Color[] PALETTE = {
    new Color(31, 119, 180),
    new Color(255, 127, 14),
    new Color(44, 160, 44),
    new Color(214, 39, 40),
    new Color(148, 103, 189),
    new Color(140, 86, 75),
    new Color(227, 119, 194),
    new Color(127, 127, 127),
    new Color(188, 189, 34),
    new Color(23, 190, 207),
  };

  private Figures() {}

  /** The pixel size of a grid of {@code count} tiles of side {@code side} ({@code cols} a row). */
  public static int[] filterGridSize(int count, int cols, int side) {
    int rows = (count + cols - 1) / cols;
    int tile = side * FILTER_SCALE;
    return new int[] {cols * tile + (cols + 1) * FILTER_GAP, rows * tile + (rows + 1) * FILTER_GAP};
  }

  /**
   * Writes the first {@code count} hidden units' incoming weights of an RBM (layer {@value
   * RbmNet#LAYER}, W [visible, hidden], visible = side x side) as grey tiles, each scaled to its
   * own range (black lowest, white highest), {@code cols} a row.
   */
  public static void writeFilters(WeightCollection rbm, int count, int cols, int side, Path png) {
    System.setProperty("java.awt.headless", "true");
    WeightCollection.Tensor w = rbm.get(RbmNet.LAYER).get(0);
    int visible = w.shape().dim(0);
    int hidden = w.shape().dim(1);
    if (visible != side * side) {
      throw new IllegalArgumentException(
          "Filters of " + visible + " visible units are not " + side + "x" + side + " images");
    }
    count = Math.min(count, hidden);
    int[] size = filterGridSize(count, cols, side);
    BufferedImage img = new BufferedImage(size[0], size[1], BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setColor(new Color(60, 60, 60));
      g.fillRect(0, 0, size[0], size[1]);
      float[] data = w.data();
      int tile = side * FILTER_SCALE;
      for (int f = 0; f < count; f++) {
        float lo = Float.POSITIVE_INFINITY;
        float hi = Float.NEGATIVE_INFINITY;
        for (int p = 0; p < visible; p++) {
          float v = data[p * hidden + f];
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
        float range = hi > lo ? hi - lo : 1f;
        int x0 = FILTER_GAP + (f % cols) * (tile + FILTER_GAP);
        int y0 = FILTER_GAP + (f / cols) * (tile + FILTER_GAP);
        for (int p = 0; p < visible; p++) {
          int grey = Math.round(255 * (data[p * hidden + f] - lo) / range);
          g.setColor(new Color(grey, grey, grey));
          g.fillRect(
              x0 + (p % side) * FILTER_SCALE,
              y0 + (p / side) * FILTER_SCALE,
              FILTER_SCALE,
              FILTER_SCALE);
        }
      }
    } finally {
      g.dispose();
    }
    write(img, png);
  }

  /** Writes a scatter of 2-D codes, one dot per example coloured by class, with a legend. */
  public static void writeCodes(float[][] codes, int[] labels, List<String> classes, Path png) {
    if (codes.length != labels.length) {
      throw new IllegalArgumentException(codes.length + " codes but " + labels.length + " labels");
    }
    System.setProperty("java.awt.headless", "true");
    int s = SCATTER_SIZE;
    int margin = 40;
    int legend = 150;
    double minX = Double.POSITIVE_INFINITY;
    double maxX = Double.NEGATIVE_INFINITY;
    double minY = Double.POSITIVE_INFINITY;
    double maxY = Double.NEGATIVE_INFINITY;
    for (float[] c : codes) {
      if (c.length != 2) {
        throw new IllegalArgumentException("Codes must be 2-D but one has " + c.length + " values");
      }
      minX = Math.min(minX, c[0]);
      maxX = Math.max(maxX, c[0]);
      minY = Math.min(minY, c[1]);
      maxY = Math.max(maxY, c[1]);
    }
    double spanX = maxX > minX ? maxX - minX : 1;
    double spanY = maxY > minY ? maxY - minY : 1;
    BufferedImage img = new BufferedImage(s, s, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, s, s);
      g.setColor(Color.DARK_GRAY);
      g.drawRect(margin, margin, s - 2 * margin - legend, s - 2 * margin);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      g.drawString("2-D codes of the deep auto-encoder, by class", margin, margin - 12);
      int plotW = s - 2 * margin - legend;
      int plotH = s - 2 * margin;
      for (int i = 0; i < codes.length; i++) {
        double x = margin + (codes[i][0] - minX) / spanX * plotW;
        double y = margin + plotH - (codes[i][1] - minY) / spanY * plotH;
        g.setColor(PALETTE[Math.floorMod(labels[i], PALETTE.length)]);
        g.fill(new Ellipse2D.Double(x - 1.5, y - 1.5, 3, 3));
      }
      for (int c = 0; c < classes.size(); c++) {
        int y = margin + 10 + c * 20;
        g.setColor(PALETTE[c % PALETTE.length]);
        g.fillRect(s - margin - legend + 15, y - 9, 10, 10);
        g.setColor(Color.BLACK);
        g.drawString(classes.get(c), s - margin - legend + 30, y);
      }
    } finally {
      g.dispose();
    }
    write(img, png);
  }

  private static void write(BufferedImage img, Path png) {
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (!ImageIO.write(img, "png", png.toFile())) {
        throw new IllegalStateException("No PNG writer in this JVM");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + png, e);
    }
  }
}
