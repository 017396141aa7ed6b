package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.plot.Axis;
import org.sparknet.apps.plot.ChartGrid;
import org.sparknet.apps.plot.Figure;
import org.sparknet.apps.plot.Series;
import org.sparknet.apps.plot.XyChart;

/** The loop benchmark's two PNGs, drawn from made-up results of the right shape. */
class BenchChartsTest {

  private static BufferedImage decode(Figure f) throws IOException {
    BufferedImage img = ImageIO.read(new ByteArrayInputStream(f.toPng()));
    assertNotNull(img, "the PNG does not decode");
    return img;
  }

  @Test
  void accuracyVersusTauIsTwoChartsOnALogTauAxis() throws IOException {
    Figure f =
        BenchCharts.accuracyVersusTau(
            List.of(
                new BenchCharts.TauRun(1, 0.867, 24.9),
                new BenchCharts.TauRun(10, 0.867, 10.9),
                new BenchCharts.TauRun(50, 0.862, 10.2),
                new BenchCharts.TauRun(200, 0.861, 9.0)),
            51_200,
            new BenchCharts.Reference("1 raw solver, same examples", 0.8655, 17.2));
    ChartGrid grid = (ChartGrid) f;
    assertEquals(2, grid.charts().size());
    for (XyChart c : grid.charts()) {
      assertEquals(Axis.Scale.LOG, c.xAxis().scale());
      assertEquals(Series.Line.DASHED, c.series().get(1).line(), "the reference line");
    }
    assertEquals("Test accuracy after 51,200 examples", grid.charts().get(0).title());
    BufferedImage img = decode(f);
    assertEquals(2 * XyChart.DEFAULT_WIDTH, img.getWidth());
    assertEquals(XyChart.DEFAULT_HEIGHT, img.getHeight());
  }

  /** A line cut at the budget (30 s) failed the last check: the runs went on to 32 s. */
  @Test
  void timeToAccuracyIsOneChartWithACurvePerRun() throws IOException {
    List<BenchCharts.Run> runs =
        List.of(
            new BenchCharts.Run("tau=10, plain", 0, false, List.of(15.0, 30.0), List.of(.88, .9)),
            new BenchCharts.Run("tau=10, EASGD", 0, true, List.of(16.0, 32.0), List.of(.87, .91)));
    XyChart c = BenchCharts.timeToAccuracy(runs, 0.91, 30);
    assertEquals(
        List.of("tau=10, plain", "tau=10, EASGD", "target 0.91"),
        c.series().stream().map(Series::name).toList());
    assertEquals(0, c.xAxis().min());
    Series targetLine = c.series().get(2);
    assertEquals(32, targetLine.x(1), "the target line reaches the last round past the budget");
    BufferedImage img = decode(c);
    assertEquals(c.width(), img.getWidth());
    assertEquals(c.height(), img.getHeight());
  }
}
