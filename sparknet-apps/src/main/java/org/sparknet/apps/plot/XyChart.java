package org.sparknet.apps.plot;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jfree.chart.JFreeChart;

/**
 * A chart of {@link Series} over an x and a y {@link Axis}: line charts (curves, overlaid with a
 * legend) and scatter plots (series of dots). Build one with {@link #builder()}; render it with the
 * {@link Figure} methods. Drawn by JFreeChart with one shared style (white background, light grid,
 * the ten Tableau colours).
 */
public record XyChart(
    String title, Axis xAxis, Axis yAxis, List<Series> series, Legend legend, int width, int height)
    implements Figure {
  /** Where the legend goes. */
  public enum Legend {
    /** Below the plot when there are two series or more, else none. */
    AUTO,
    BOTTOM,
    RIGHT,
    NONE
  }

  public static final int DEFAULT_WIDTH = 640;
  public static final int DEFAULT_HEIGHT = 420;

  /**
   * Throws {@link IllegalArgumentException} when an axis is missing, two series share a name (the
   * legend could not tell them apart), a value on a logarithmic axis is not positive, or the size
   * is outside 100 to 10,000 pixels a side.
   */
  public XyChart {
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(legend, "legend");
    series = List.copyOf(series);
    checkSize(width, height);
    String what = title.isEmpty() ? "The chart" : "Chart '" + title + "'";
    if (xAxis == null || yAxis == null) {
      throw new IllegalArgumentException(what + " needs an x and a y axis (setXAxis, setYAxis)");
    }
    Set<String> names = new HashSet<>();
    for (Series s : series) {
      if (!names.add(s.name())) {
        throw new IllegalArgumentException(what + " has two series named '" + s.name() + "'");
      }
      checkPositive(what, xAxis, s, true);
      checkPositive(what, yAxis, s, false);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public BufferedImage toImage() {
    return JFreeCharts.render(List.of(this), 1);
  }

  /** The JFreeChart this chart draws; package-private for tests of the tick choice. */
  JFreeChart toJFreeChart() {
    return JFreeCharts.create(this);
  }

  /** Builds an {@link XyChart}; the axes are required, the rest optional. */
  public static final class Builder {
    private String title = "";
    private Axis xAxis;
    private Axis yAxis;
    private final List<Series> series = new ArrayList<>();
    private Legend legend = Legend.AUTO;
    private int width = DEFAULT_WIDTH;
    private int height = DEFAULT_HEIGHT;

    private Builder() {}

    public Builder setXAxis(Axis axis) {
      this.xAxis = Objects.requireNonNull(axis, "axis");
      return this;
    }

    public Builder setYAxis(Axis axis) {
      this.yAxis = Objects.requireNonNull(axis, "axis");
      return this;
    }

    public Builder optTitle(String chartTitle) {
      this.title = Objects.requireNonNull(chartTitle, "chartTitle");
      return this;
    }

    public Builder addSeries(Series s) {
      series.add(Objects.requireNonNull(s, "series"));
      return this;
    }

    public Builder optLegend(Legend where) {
      this.legend = Objects.requireNonNull(where, "where");
      return this;
    }

    /** The size in pixels (default {@value #DEFAULT_WIDTH} x {@value #DEFAULT_HEIGHT}). */
    public Builder optSize(int widthPx, int heightPx) {
      checkSize(widthPx, heightPx);
      this.width = widthPx;
      this.height = heightPx;
      return this;
    }

    /** The chart; throws {@link IllegalArgumentException} as the record's constructor does. */
    public XyChart build() {
      return new XyChart(title, xAxis, yAxis, series, legend, width, height);
    }
  }

  private static void checkSize(int width, int height) {
    if (width < 100 || height < 100 || width > 10_000 || height > 10_000) {
      throw new IllegalArgumentException(
          "Chart size " + width + "x" + height + " is outside 100 to 10,000 pixels a side");
    }
  }

  private static void checkPositive(String what, Axis axis, Series s, boolean isX) {
    if (axis.scale() != Axis.Scale.LOG) {
      return;
    }
    for (int i = 0; i < s.size(); i++) {
      double v = isX ? s.x(i) : s.y(i);
      if (!(v > 0) && !Double.isNaN(v)) {
        throw new IllegalArgumentException(
            String.format(
                "%s: axis '%s' is logarithmic but series '%s' has %s = %s at index %d;"
                    + " use a linear axis or drop the point",
                what, axis.label(), s.name(), isX ? "x" : "y", v, i));
      }
    }
  }
}
