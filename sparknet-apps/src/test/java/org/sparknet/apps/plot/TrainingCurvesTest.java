package org.sparknet.apps.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.apps.testing.Pngs;

/** What train --plot and demo draw: losses overlaid on one chart, accuracy on the next. */
class TrainingCurvesTest {

  /**
   * Test loss joins the training loss; accuracy gets the second chart, over the same x range. With
   * the test loss put beside the accuracy the first chart was titled "Training loss"; without the
   * shared range its x axis fitted its own data (min NaN).
   */
  @Test
  void lossesShareAChartAndAccuracyGetsItsOwn() throws IOException {
    TrainingCurves curves = new TrainingCurves(Axis.linear("round").integers(), "");
    for (int r = 1; r <= 5; r++) {
      curves.addTraining(r, 2.0 / r);
      if (r % 2 == 1) {
        curves.addTest(r, Map.of("loss", 2.2f / r, "accuracy", 0.5f + 0.08f * r));
      }
    }
    Figure f = curves.toFigure();
    ChartGrid grid = assertInstanceOf(ChartGrid.class, f);
    assertEquals(2, grid.charts().size());
    XyChart loss = grid.charts().get(0);
    XyChart accuracy = grid.charts().get(1);
    assertEquals("Loss", loss.title());
    assertEquals(
        List.of("training loss (mean per round)", "test loss"),
        loss.series().stream().map(Series::name).toList());
    assertEquals(3, loss.series().get(1).size());
    assertEquals("Test accuracy", accuracy.title());
    assertEquals(List.of("test accuracy"), accuracy.series().stream().map(Series::name).toList());
    // Both charts keep a legend and one x range so that their plot areas and x axes line up.
    assertEquals(XyChart.Legend.BOTTOM, accuracy.legend());
    assertEquals(loss.xAxis(), accuracy.xAxis());
    assertEquals(1, accuracy.xAxis().min());
    assertEquals(5, accuracy.xAxis().max());

    BufferedImage img = Pngs.decode(f.toPng());
    assertEquals(2 * XyChart.DEFAULT_WIDTH, img.getWidth());
    assertEquals(XyChart.DEFAULT_HEIGHT, img.getHeight());
  }

  @Test
  void withoutTestsTheFigureIsTheTrainingLossAlone() throws IOException {
    TrainingCurves curves = new TrainingCurves(Axis.linear("epoch"), "Fashion-MNIST");
    curves.addTraining(0.5, 1.2);
    curves.addTraining(1.0, 0.8);
    XyChart chart = assertInstanceOf(XyChart.class, curves.toFigure());
    assertEquals("Fashion-MNIST: training loss", chart.title());
    assertEquals(XyChart.Legend.NONE, chart.legend());
    BufferedImage img = Pngs.decode(chart.toPng());
    assertEquals(XyChart.DEFAULT_WIDTH, img.getWidth());
    assertEquals(XyChart.DEFAULT_HEIGHT, img.getHeight());
  }

  @Test
  void severalTestOutputsShareTheSecondChart() {
    TrainingCurves curves = new TrainingCurves(Axis.linear("round").integers(), "");
    curves.addTraining(1, 1);
    curves.addTest(1, Map.of("accuracy", 0.5f));
    curves.addTest(1, Map.of("accuracy_top5", 0.9f));
    ChartGrid grid = (ChartGrid) curves.toFigure();
    assertEquals("Test outputs", grid.charts().get(1).title());
    assertEquals(2, grid.charts().get(1).series().size());
  }
}
