package org.sparknet.apps.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.text.AttributedCharacterIterator;
import java.text.CharacterIterator;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogTick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.ui.RectangleEdge;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.Pngs;

/**
 * The chart facade: PNGs that decode at the size asked for, tick labels at round values on linear,
 * integer and logarithmic axes, legends, and clear errors for bad input.
 */
class XyChartTest {

  /** The labelled (major) ticks of one axis of the chart, laid out at the chart's size. */
  static List<ValueTick> majorTicks(XyChart c, boolean xAxis) {
    JFreeChart chart = c.toJFreeChart();
    BufferedImage img = new BufferedImage(c.width(), c.height(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      ChartRenderingInfo info = new ChartRenderingInfo();
      chart.draw(g, new Rectangle2D.Double(0, 0, c.width(), c.height()), info);
      Rectangle2D dataArea = info.getPlotInfo().getDataArea();
      ValueAxis axis = xAxis ? chart.getXYPlot().getDomainAxis() : chart.getXYPlot().getRangeAxis();
      RectangleEdge edge = xAxis ? RectangleEdge.BOTTOM : RectangleEdge.LEFT;
      List<ValueTick> major = new ArrayList<>();
      for (Object t : axis.refreshTicks(g, new AxisState(), dataArea, edge)) {
        ValueTick tick = (ValueTick) t;
        if (tick.getTickType() == TickType.MAJOR) {
          major.add(tick);
        }
      }
      return major;
    } finally {
      g.dispose();
    }
  }

  private static XyChart accuracyChart(double... y) {
    double[] x = new double[y.length];
    for (int i = 0; i < x.length; i++) {
      x[i] = (i + 1) / 15.0; // epochs of 15 rounds each: 0.0667, 0.1333, ...
    }
    return XyChart.builder()
        .setXAxis(Axis.linear("epoch"))
        .setYAxis(Axis.linear("accuracy"))
        .addSeries(Series.of("test accuracy", x, y))
        .build();
  }

  @Test
  void pngDecodesAtTheSizeAskedFor(@TempDir Path tmp) throws IOException {
    XyChart c =
        XyChart.builder()
            .optTitle("Loss")
            .setXAxis(Axis.linear("round").integers())
            .setYAxis(Axis.linear("loss"))
            .addSeries(Series.of("training loss", new double[] {1, 2, 3}, new double[] {2, 1, .5}))
            .optSize(500, 300)
            .build();
    BufferedImage img = Pngs.decode(c.toPng());
    assertEquals(500, img.getWidth());
    assertEquals(300, img.getHeight());

    // The stream overload leaves the stream open for the caller (a Hadoop stream, say); one that
    // closed it failed here.
    boolean[] closed = {false};
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    c.writePng(
        new OutputStream() {
          @Override
          public void write(int b) {
            bytes.write(b);
          }

          @Override
          public void close() {
            closed[0] = true;
          }
        });
    assertEquals(500, Pngs.decode(bytes.toByteArray()).getWidth());
    assertTrue(!closed[0], "writePng(OutputStream) closed the caller's stream");

    Path file = tmp.resolve("a/b/loss.png");
    c.writePng(file);
    Pngs.assertPng(file, 500, 300);
  }

  /**
   * Accuracy from 0.85 to 0.93: every labelled tick is a multiple of 1, 2 or 5 x 10^k, labelled
   * with as many decimals as that step needs; at least four lie inside the data and at most {@value
   * Axis#MAX_TICKS} + 1 in all. The hand-drawn plots gave 0.902 and 1.19; without the tick cap this
   * test saw 17 ticks, 0.850, 0.855, ..., 0.930.
   */
  @Test
  void linearTicksAreRoundValues() {
    XyChart c = accuracyChart(0.85, 0.87, 0.89, 0.90, 0.91, 0.92, 0.93);
    List<ValueTick> ticks = majorTicks(c, false);
    double step = ticks.get(1).getValue() - ticks.get(0).getValue();
    double mantissa = step / Math.pow(10, Math.floor(Math.log10(step) + 1e-9));
    assertTrue(
        List.of(1L, 2L, 5L).contains(Math.round(mantissa))
            && Math.abs(mantissa - Math.round(mantissa)) < 1e-6,
        "tick step " + step);
    int decimals = (int) Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
    int inside = 0;
    for (ValueTick t : ticks) {
      double v = t.getValue();
      assertEquals(Math.round(v / step) * step, v, step * 1e-6, "tick " + v + " is off the step");
      assertEquals(String.format("%." + decimals + "f", v), t.getText(), "label of tick " + v);
      if (v >= 0.85 - 1e-9 && v <= 0.93 + 1e-9) {
        inside++;
      }
    }
    assertTrue(inside >= 4, "ticks " + texts(ticks));
    assertTrue(ticks.size() <= Axis.MAX_TICKS + 1, "ticks " + texts(ticks));

    // x: epochs k/15 get ticks at round epochs (0.1, 0.15, ...), not at the data (0.0667, ...).
    for (ValueTick t : majorTicks(c, true)) {
      assertTrue(t.getText().matches("\\d(\\.\\d\\d?)?"), "epoch tick " + t.getText());
    }
  }

  /** Rounds get whole-number ticks; without integer tick units this test saw 1.0, 1.5, ..., 4.0. */
  @Test
  void integerAxisTicksAreWholeNumbers() {
    XyChart c =
        XyChart.builder()
            .setXAxis(Axis.linear("round").integers())
            .setYAxis(Axis.linear("loss"))
            .addSeries(Series.of("loss", new double[] {1, 2, 3, 4}, new double[] {4, 3, 2, 1}))
            .build();
    List<ValueTick> ticks = majorTicks(c, true);
    assertTrue(ticks.size() >= 2, "ticks " + texts(ticks));
    for (ValueTick t : ticks) {
      assertTrue(t.getText().matches("\\d+"), "round tick " + t.getText() + " in " + texts(ticks));
    }
  }

  /**
   * tau = 1, 10, 50, 200 on a log axis: labelled ticks 1, 10, 100. Without the decade tick units
   * this test saw 1, 3.162278, 10, 31.622777, 100; without the format override 100, 101, 102 (a
   * base and a superscript exponent).
   */
  @Test
  void logAxisTicksArePowersOfTen() {
    XyChart c =
        XyChart.builder()
            .setXAxis(Axis.log("tau"))
            .setYAxis(Axis.linear("accuracy"))
            .addSeries(
                Series.of("acc", new double[] {1, 10, 50, 200}, new double[] {.87, .86, .86, .85}))
            .build();
    assertEquals(List.of("1", "10", "100"), texts(majorTicks(c, true)));
  }

  /** One value: a range around it; with a range of 1e-7 the five ticks all read 8.7E-1. */
  @Test
  void aSinglePointGetsAReadableRange() {
    XyChart c = accuracyChart(0.87);
    c.toPng();
    List<ValueTick> ticks = majorTicks(c, false);
    double span = ticks.get(ticks.size() - 1).getValue() - ticks.get(0).getValue();
    assertTrue(span >= 0.05, "y ticks " + texts(ticks));
  }

  /** AUTO shows a legend for two series or more; a legend on every chart failed the first check. */
  @Test
  void legendOnlyWhenThereIsMoreThanOneSeries() {
    XyChart.Builder b =
        XyChart.builder()
            .setXAxis(Axis.linear("x"))
            .setYAxis(Axis.linear("y"))
            .addSeries(Series.of("a", new double[] {1, 2}, new double[] {1, 2}));
    assertNull(b.build().toJFreeChart().getLegend());
    b.addSeries(Series.of("b", new double[] {1, 2}, new double[] {2, 1}));
    assertNotNull(b.build().toJFreeChart().getLegend());
    assertNull(b.optLegend(XyChart.Legend.NONE).build().toJFreeChart().getLegend());
  }

  /** The grid draws every chart: drawing only the first, the right half had 0 dark pixels. */
  @Test
  void gridPlacesChartsSideBySide() throws IOException {
    XyChart a = accuracyChart(0.85, 0.9);
    XyChart b = accuracyChart(0.9, 0.85);
    ChartGrid grid = ChartGrid.row(a, b);
    BufferedImage img = Pngs.decode(grid.toPng());
    assertEquals(2 * XyChart.DEFAULT_WIDTH, img.getWidth());
    assertEquals(XyChart.DEFAULT_HEIGHT, img.getHeight());
    for (int half = 0; half < 2; half++) {
      int dark = 0;
      for (int y = 0; y < img.getHeight(); y++) {
        for (int x = half * img.getWidth() / 2; x < (half + 1) * img.getWidth() / 2; x++) {
          int rgb = img.getRGB(x, y) & 0xffffff;
          if ((rgb & 0xff) < 128 && ((rgb >> 8) & 0xff) < 128) {
            dark++;
          }
        }
      }
      assertTrue(dark > 200, "half " + half + " has " + dark + " dark pixels");
    }
    assertEquals(2 * 420, ChartGrid.of(1, List.of(a, b)).height());
  }

  /** Without the log-axis check, a zero on it was taken silently (nothing thrown). */
  @Test
  void badInputIsRefusedWithItsName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                XyChart.builder()
                    .optTitle("Accuracy vs tau")
                    .setXAxis(Axis.log("tau"))
                    .setYAxis(Axis.linear("accuracy"))
                    .addSeries(Series.of("sweep", new double[] {1, 0}, new double[] {.8, .9}))
                    .build());
    assertEquals(
        "Chart 'Accuracy vs tau': axis 'tau' is logarithmic but series 'sweep' has x = 0.0 at"
            + " index 1; use a linear axis or drop the point",
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Series.of("loss", new double[] {1, 2}, new double[] {1}));
    assertEquals("Series 'loss' has 2 x values but 1 y values", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                XyChart.builder()
                    .setXAxis(Axis.linear("x"))
                    .setYAxis(Axis.linear("y"))
                    .addSeries(Series.of("a", new double[0], new double[0]))
                    .addSeries(Series.of("a", new double[0], new double[0]))
                    .build());
    assertEquals("The chart has two series named 'a'", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> XyChart.builder().setXAxis(Axis.linear("x")).build());
    assertTrue(e.getMessage().contains("needs an x and a y axis"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> XyChart.builder().optSize(20, 400));
  }

  private static List<String> texts(List<ValueTick> ticks) {
    return ticks.stream().map(XyChartTest::text).toList();
  }

  /** A tick's label; a log axis keeps its labels as attributed strings. */
  private static String text(ValueTick t) {
    if (!(t instanceof LogTick log)) {
      return t.getText();
    }
    StringBuilder s = new StringBuilder();
    AttributedCharacterIterator it = log.getAttributedLabel().getIterator();
    for (char ch = it.first(); ch != CharacterIterator.DONE; ch = it.next()) {
      s.append(ch);
    }
    return s.toString();
  }
}
