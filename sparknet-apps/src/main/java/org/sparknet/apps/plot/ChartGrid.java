package org.sparknet.apps.plot;

import java.awt.image.BufferedImage;
import java.util.List;

/**
 * Several {@link XyChart}s in one picture, {@code columns} a row, each in a cell as large as the
 * largest chart: one chart per quantity, side by side, in the same style.
 */
public final class ChartGrid implements Figure {
  private final List<XyChart> charts;
  private final int columns;

  private ChartGrid(List<XyChart> charts, int columns) {
    if (charts.isEmpty()) {
      throw new IllegalArgumentException("A chart grid needs at least one chart");
    }
    if (columns < 1) {
      throw new IllegalArgumentException("A chart grid needs at least one column, not " + columns);
    }
    this.charts = List.copyOf(charts);
    this.columns = Math.min(columns, charts.size());
  }

  /** The charts in rows of {@code columns}. */
  public static ChartGrid of(int columns, List<XyChart> charts) {
    return new ChartGrid(charts, columns);
  }

  /** The charts side by side in one row. */
  public static ChartGrid row(XyChart... charts) {
    return new ChartGrid(List.of(charts), charts.length);
  }

  public List<XyChart> charts() {
    return charts;
  }

  public int columns() {
    return columns;
  }

  @Override
  public int width() {
    return columns * charts.stream().mapToInt(XyChart::width).max().orElseThrow();
  }

  @Override
  public int height() {
    int rows = (charts.size() + columns - 1) / columns;
    return rows * charts.stream().mapToInt(XyChart::height).max().orElseThrow();
  }

  @Override
  public BufferedImage toImage() {
    return JFreeCharts.render(charts, columns);
  }
}
