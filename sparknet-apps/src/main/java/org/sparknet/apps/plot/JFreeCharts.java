package org.sparknet.apps.plot;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.text.DecimalFormat;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.TickUnit;
import org.jfree.chart.axis.TickUnits;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Turns {@link XyChart}s into JFreeCharts in the one house style, and draws them to pixels. */
final class JFreeCharts {
  /** Tableau's ten colours (matplotlib's default cycle). */
  static final Color[] PALETTE = {
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

  private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 15);
  private static final Font LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
  private static final Font TICK_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 11);
  private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
  private static final Color GRID = new Color(225, 225, 225);
  private static final Color FRAME = new Color(170, 170, 170);
  private static final Color INK = new Color(51, 51, 51);
  private static final float LINE_WIDTH = 2f;

  /** Space beyond the data on each side of an axis, as a share of the data's span. */
  private static final double MARGIN = 0.04;

  private JFreeCharts() {}

  /**
   * Draws charts into one image, {@code columns} a row, each in a cell as large as the largest
   * chart.
   */
  static BufferedImage render(List<XyChart> charts, int columns) {
    System.setProperty("java.awt.headless", "true");
    int cellW = charts.stream().mapToInt(XyChart::width).max().orElse(XyChart.DEFAULT_WIDTH);
    int cellH = charts.stream().mapToInt(XyChart::height).max().orElse(XyChart.DEFAULT_HEIGHT);
    int rows = (charts.size() + columns - 1) / columns;
    BufferedImage img =
        new BufferedImage(cellW * columns, cellH * Math.max(1, rows), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, img.getWidth(), img.getHeight());
      for (int i = 0; i < charts.size(); i++) {
        XyChart c = charts.get(i);
        Rectangle2D cell =
            new Rectangle2D.Double(
                (i % columns) * cellW, (i / columns) * cellH, c.width(), c.height());
        create(c).draw(g, cell);
      }
    } finally {
      g.dispose();
    }
    return img;
  }

  static JFreeChart create(XyChart c) {
    XYSeriesCollection data = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer();
    renderer.setDrawSeriesLineAsPath(true); // dashes run on across points
    List<Series> series = c.series();
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      XYSeries xy = new XYSeries(s.name(), false, true);
      for (int k = 0; k < s.size(); k++) {
        xy.add(s.x(k), s.y(k), false);
      }
      data.addSeries(xy);
      int slot = s.colour() == Series.AUTO_COLOUR ? i : s.colour();
      renderer.setSeriesPaint(i, PALETTE[slot % PALETTE.length]);
      renderer.setSeriesLinesVisible(i, s.line() != Series.Line.NONE);
      renderer.setSeriesStroke(i, stroke(s.line()));
      renderer.setSeriesShapesVisible(i, s.marker() != Series.Marker.NONE);
      renderer.setSeriesShape(i, shape(s.marker(), 6));
      if (s.marker() == Series.Marker.DOT) {
        renderer.setLegendShape(i, shape(Series.Marker.CIRCLE, 9));
      }
    }
    XYPlot plot =
        new XYPlot(data, axis(c.xAxis(), series, true), axis(c.yAxis(), series, false), renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setOutlinePaint(FRAME);
    plot.setDomainGridlinePaint(GRID);
    plot.setRangeGridlinePaint(GRID);
    plot.setDomainGridlineStroke(new BasicStroke(1f));
    plot.setRangeGridlineStroke(new BasicStroke(1f));
    plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
    plot.setNoDataMessage("no data");
    plot.setNoDataMessageFont(LABEL_FONT);

    JFreeChart chart = new JFreeChart(null, TITLE_FONT, plot, false);
    if (!c.title().isEmpty()) {
      TextTitle title = new TextTitle(c.title(), TITLE_FONT);
      title.setPaint(INK);
      title.setPadding(new RectangleInsets(2, 2, 8, 2));
      chart.setTitle(title);
    }
    RectangleEdge legendEdge = legendEdge(c.legend(), series.size());
    if (legendEdge != null) {
      LegendTitle legend = new LegendTitle(plot);
      legend.setPosition(legendEdge);
      legend.setItemFont(LEGEND_FONT);
      legend.setItemPaint(INK);
      legend.setFrame(BlockBorder.NONE);
      legend.setBackgroundPaint(Color.WHITE);
      legend.setItemLabelPadding(new RectangleInsets(2, 4, 2, 10));
      chart.addSubtitle(legend);
    }
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(10, 10, 8, 18));
    chart.setAntiAlias(true);
    chart.setTextAntiAlias(true);
    return chart;
  }

  private static RectangleEdge legendEdge(XyChart.Legend legend, int seriesCount) {
    switch (legend) {
      case BOTTOM:
        return RectangleEdge.BOTTOM;
      case RIGHT:
        return RectangleEdge.RIGHT;
      case NONE:
        return null;
      default:
        return seriesCount >= 2 ? RectangleEdge.BOTTOM : null;
    }
  }

  private static ValueAxis axis(Axis spec, List<Series> series, boolean isX) {
    ValueAxis axis = spec.scale() == Axis.Scale.LOG ? logAxis(spec) : linearAxis(spec);
    axis.setLabelFont(LABEL_FONT);
    axis.setLabelPaint(INK);
    axis.setTickLabelFont(TICK_FONT);
    axis.setTickLabelPaint(INK);
    axis.setAxisLinePaint(FRAME);
    axis.setTickMarkPaint(FRAME);
    double[] span = span(series, isX);
    if (spec.hasRange()) {
      span =
          span == null
              ? new double[] {spec.min(), spec.max()}
              : new double[] {Math.min(span[0], spec.min()), Math.max(span[1], spec.max())};
    }
    if (span == null) {
      return axis;
    }
    boolean log = spec.scale() == Axis.Scale.LOG;
    double lo = log ? Math.log10(span[0]) : span[0];
    double hi = log ? Math.log10(span[1]) : span[1];
    if (hi - lo <= 1e-9 * Math.max(1, Math.abs(hi))) {
      // One value (or all equal): a range around it rather than a sliver of 1e-7.
      double half = log || hi == 0 ? 0.5 : Math.abs(hi) * 0.1;
      lo -= half;
      hi += half;
    }
    double margin = (hi - lo) * MARGIN;
    lo -= margin;
    hi += margin;
    axis.setRange(log ? Math.pow(10, lo) : lo, log ? Math.pow(10, hi) : hi);
    return axis;
  }

  private static ValueAxis linearAxis(Axis spec) {
    NumberAxis linear =
        new NumberAxis(spec.label()) {
          private static final long serialVersionUID = 1L;

          @Override
          protected void selectAutoTickUnit(Graphics2D g2, Rectangle2D area, RectangleEdge edge) {
            // JFreeChart packs in as many ticks as the labels allow; a reader wants a few.
            super.selectAutoTickUnit(g2, area, edge);
            TickUnit unit = getTickUnit();
            while (getRange().getLength() / unit.getSize() > Axis.MAX_TICKS) {
              unit = getStandardTickUnits().getLargerTickUnit(unit);
            }
            setTickUnit((NumberTickUnit) unit, false, false);
          }
        };
    linear.setAutoRangeIncludesZero(false);
    if (spec.integerTicks()) {
      linear.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    }
    return linear;
  }

  private static ValueAxis logAxis(Axis spec) {
    LogAxis log = new LogAxis(spec.label());
    // Whole decades only: 1, 10, 100 with minor marks at 2..9 (9 minor intervals a decade).
    DecimalFormat plain = new DecimalFormat("#,##0.######");
    TickUnits decades = new TickUnits();
    decades.add(new NumberTickUnit(1, plain, 9));
    decades.add(new NumberTickUnit(2, plain, 0));
    decades.add(new NumberTickUnit(5, plain, 0));
    decades.add(new NumberTickUnit(10, plain, 0));
    log.setStandardTickUnits(decades);
    log.setNumberFormatOverride(plain);
    log.setMinorTickMarksVisible(true);
    return log;
  }

  /** The smallest and largest finite value of x (or y) over all series, or null when none. */
  private static double[] span(List<Series> series, boolean isX) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (int i = 0; i < s.size(); i++) {
        double v = isX ? s.x(i) : s.y(i);
        if (Double.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    return lo <= hi ? new double[] {lo, hi} : null;
  }

  private static BasicStroke stroke(Series.Line line) {
    switch (line) {
      case DASHED:
        return new BasicStroke(
            LINE_WIDTH, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f, new float[] {7f, 4f}, 0f);
      case DOTTED:
        return new BasicStroke(
            LINE_WIDTH,
            BasicStroke.CAP_ROUND,
            BasicStroke.JOIN_ROUND,
            1f,
            new float[] {1f, 4f},
            0f);
      default:
        return new BasicStroke(LINE_WIDTH, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);
    }
  }

  private static Shape shape(Series.Marker marker, double circle) {
    double d = marker == Series.Marker.DOT ? 3 : circle;
    return new Ellipse2D.Double(-d / 2, -d / 2, d, d);
  }
}
