package org.sparknet.apps.autoencoder;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.WeightCollection;
import org.sparknet.apps.plot.Axis;
import org.sparknet.apps.plot.Figure;
import org.sparknet.apps.plot.Series;
import org.sparknet.apps.plot.XyChart;
import org.sparknet.rbm.RbmNet;

/**
 * The two figures of SINGA's dimensionality-reduction example: the first RBM's filters as image
 * tiles (Figure 16a, pixels) and the 2-D codes coloured by class (Figure 16b, a scatter chart).
 */
public final class Figures {
  /** Pixels per filter pixel in the filter grid. */
  public static final int FILTER_SCALE = 2;

  /** White gap between tiles, in pixels. */
  public static final int FILTER_GAP = 2;

  /** Width and height of the scatter plot. */
  public static final int SCATTER_SIZE = 720;

  private Figures() {}

  /** The pixel size of a grid of {@code count} tiles of side {@code side} ({@code cols} a row). */
  public static int[] filterGridSize(int count, int cols, int side) {
    int rows = (count + cols - 1) / cols;
    int tile = side * FILTER_SCALE;
    return new int[] {cols * tile + (cols + 1) * FILTER_GAP, rows * tile + (rows + 1) * FILTER_GAP};
  }

  /**
   * The first {@code count} hidden units' incoming weights of an RBM (layer {@value RbmNet#LAYER},
   * W [visible, hidden], visible = side x side) as grey tiles on white, {@code cols} a row, each
   * tile scaled to its own range (black lowest, white highest) as filters are usually shown: the
   * weights' scales differ from unit to unit, their patterns are what is compared.
   */
  public static Figure filters(WeightCollection rbm, int count, int cols, int side) {
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
    int white = Color.WHITE.getRGB();
    for (int y = 0; y < size[1]; y++) {
      for (int x = 0; x < size[0]; x++) {
        img.setRGB(x, y, white);
      }
    }
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
        int rgb = (grey << 16) | (grey << 8) | grey;
        int px = x0 + (p % side) * FILTER_SCALE;
        int py = y0 + (p / side) * FILTER_SCALE;
        for (int dy = 0; dy < FILTER_SCALE; dy++) {
          for (int dx = 0; dx < FILTER_SCALE; dx++) {
            img.setRGB(px + dx, py + dy, rgb);
          }
        }
      }
    }
    return Figure.of(img);
  }

  /**
   * A scatter of 2-D codes, one dot per example coloured by its class ({@code labels[i]} indexes
   * {@code classes}), with the class names in a legend.
   */
  public static XyChart codes(float[][] codes, int[] labels, List<String> classes) {
    if (codes.length != labels.length) {
      throw new IllegalArgumentException(codes.length + " codes but " + labels.length + " labels");
    }
    List<List<Double>> xs = new ArrayList<>();
    List<List<Double>> ys = new ArrayList<>();
    for (int c = 0; c < classes.size(); c++) {
      xs.add(new ArrayList<>());
      ys.add(new ArrayList<>());
    }
    for (int i = 0; i < codes.length; i++) {
      if (codes[i].length != 2) {
        throw new IllegalArgumentException(
            "Codes must be 2-D but code " + i + " has " + codes[i].length + " values");
      }
      if (labels[i] < 0 || labels[i] >= classes.size()) {
        throw new IllegalArgumentException(
            "Label "
                + labels[i]
                + " of code "
                + i
                + " names none of the "
                + classes.size()
                + " classes");
      }
      xs.get(labels[i]).add((double) codes[i][0]);
      ys.get(labels[i]).add((double) codes[i][1]);
    }
    XyChart.Builder chart =
        XyChart.builder()
            .optTitle("2-D codes of the deep auto-encoder, by class")
            .setXAxis(Axis.linear("code 1"))
            .setYAxis(Axis.linear("code 2"))
            .optLegend(XyChart.Legend.RIGHT)
            .optSize(SCATTER_SIZE, SCATTER_SIZE);
    for (int c = 0; c < classes.size(); c++) {
      chart.addSeries(
          Series.of(classes.get(c), xs.get(c), ys.get(c))
              .withLine(Series.Line.NONE)
              .withMarker(Series.Marker.DOT)
              .withColour(c));
    }
    return chart.build();
  }
}
