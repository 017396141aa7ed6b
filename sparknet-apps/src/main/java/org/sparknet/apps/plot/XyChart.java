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
public final class XyChart implements Figure {
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

  private final String title;
  private final Axis xAxis;
  private final Axis yAxis;
  private final List<Series> series;
  private final Legend legend;
  private final int width;
  private final int height;

  private XyChart(Builder b) {
    this.title = b.title;
    this.xAxis = b.xAxis;
    this.yAxis = b.yAxis;
    this.series = List.copyOf(b.series);
    this.legend = b.legend;
    this.width = b.width;
    this.height = b.height;
  }

  public static Builder builder() {
    return new Builder();
  }

  public String title() {
    return title;
  }

  public Axis xAxis() {
    return xAxis;
  }

  public Axis yAxis() {
    return yAxis;
  }

  public List<Series> series() {
    return series;
  }

  public Legend legend() {
    return legend;
  }

  @Override
  public int width() {
    return width;
  }

  @Override
  public int height() {
    return height;
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
      if (widthPx < 100 || heightPx < 100 || widthPx > 10_000 || heightPx > 10_000) {
        throw new IllegalArgumentException(
            "Chart size " + widthPx + "x" + heightPx + " is outside 100 to 10,000 pixels a side");
      }
      this.width = widthPx;
      this.height = heightPx;
      return this;
    }

    /**
     * The chart. Throws {@link IllegalArgumentException} when an axis is missing, two series share
     * a name (the legend could not tell them apart), or a value on a logarithmic axis is not
     * positive.
     */
    public XyChart build() {
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
      return new XyChart(this);
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
}
