package org.sparknet.apps.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Training curves drawn to a PNG with plain Java2D (headless): one panel per series, x the training
 * progress (epochs), y the value, with axis ticks and labels.
 */
public final class CurvePlot {
  private static final int PANEL_W = 560;
  private static final int PANEL_H = 360;
  private static final int MARGIN_L = 70;
  private static final int MARGIN_R = 20;
  private static final int MARGIN_T = 40;
  private static final int MARGIN_B = 50;

  /** One named curve: x values and y values of equal length. */
  public record Series(String title, String yLabel, List<Double> x, List<Double> y) {
    public Series {
      if (x.size() != y.size()) {
        throw new IllegalArgumentException(
            "Series '" + title + "' has " + x.size() + " x values but " + y.size() + " y values");
      }
      x = List.copyOf(x);
      y = List.copyOf(y);
    }
  }

  private final String xLabel;
  private final List<Series> panels = new ArrayList<>();

  public CurvePlot(String xLabel) {
    this.xLabel = xLabel;
  }

  public CurvePlot add(Series s) {
    panels.add(s);
    return this;
  }

  /** Renders the panels side by side and writes a PNG (parent directories are created). */
  public void write(Path png) {
    System.setProperty("java.awt.headless", "true");
    int n = Math.max(1, panels.size());
    BufferedImage img = new BufferedImage(PANEL_W * n, PANEL_H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, img.getWidth(), img.getHeight());
      for (int i = 0; i < panels.size(); i++) {
        drawPanel(g, panels.get(i), i * PANEL_W);
      }
    } finally {
      g.dispose();
    }
    try {
      Path parent = png.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (!ImageIO.write(img, "png", png.toFile())) {
        throw new IllegalStateException("No PNG writer available to write " + png);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write plot " + png + ": " + e.getMessage(), e);
    }
  }

  private void drawPanel(Graphics2D g, Series s, int x0) {
    int left = x0 + MARGIN_L;
    int right = x0 + PANEL_W - MARGIN_R;
    int top = MARGIN_T;
    int bottom = PANEL_H - MARGIN_B;
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(s.title(), left, top - 15);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawLine(left, bottom, right, bottom);
    g.drawLine(left, top, left, bottom);
    g.drawString(xLabel, (left + right) / 2 - 20, PANEL_H - 12);
    g.drawString(s.yLabel(), x0 + 5, top - 2);
    if (s.x().isEmpty()) {
      g.drawString("no data", (left + right) / 2 - 20, (top + bottom) / 2);
      return;
    }
    double xMin = Math.min(0, min(s.x()));
    double xMax = max(s.x());
    double yMin = min(s.y());
    double yMax = max(s.y());
    if (xMax <= xMin) {
      xMax = xMin + 1;
    }
    double pad = (yMax - yMin) * 0.05;
    if (pad == 0) {
      pad = Math.max(1e-3, Math.abs(yMax) * 0.05);
    }
    yMin -= pad;
    yMax += pad;
    for (int t = 0; t <= 5; t++) {
      double xv = xMin + (xMax - xMin) * t / 5;
      int px = left + (int) Math.round((right - left) * t / 5.0);
      g.setColor(Color.LIGHT_GRAY);
      g.drawLine(px, top, px, bottom);
      g.setColor(Color.BLACK);
      g.drawString(String.format("%.2f", xv), px - 12, bottom + 15);
      double yv = yMin + (yMax - yMin) * t / 5;
      int py = bottom - (int) Math.round((bottom - top) * t / 5.0);
      g.setColor(Color.LIGHT_GRAY);
      g.drawLine(left, py, right, py);
      g.setColor(Color.BLACK);
      g.drawString(String.format("%.3f", yv), x0 + 8, py + 4);
    }
    g.setColor(new Color(31, 119, 180));
    g.setStroke(new BasicStroke(2f));
    int prevX = -1;
    int prevY = -1;
    for (int i = 0; i < s.x().size(); i++) {
      int px = left + (int) Math.round((s.x().get(i) - xMin) / (xMax - xMin) * (right - left));
      int py = bottom - (int) Math.round((s.y().get(i) - yMin) / (yMax - yMin) * (bottom - top));
      if (prevX >= 0) {
        g.drawLine(prevX, prevY, px, py);
      }
      g.fillOval(px - 3, py - 3, 6, 6);
      prevX = px;
      prevY = py;
    }
    g.setStroke(new BasicStroke(1f));
  }

  private static double min(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).min().orElse(0);
  }

  private static double max(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).max().orElse(1);
  }
}
