package org.sparknet.apps.plot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The curves of one training run, collected round by round, as a figure: a loss chart (the training
 * loss and every test output whose name contains "loss", overlaid, so that over-fitting shows as
 * the two curves parting) beside a chart of the other test outputs (accuracy). Two charts rather
 * than a second y axis: loss and accuracy have unrelated scales, and two charts with the same x
 * axis read without matching each curve to its axis.
 */
public final class TrainingCurves {
  private final Axis xAxis;
  private final String dataName;
  private final List<Double> trainX = new ArrayList<>();
  private final List<Double> trainLoss = new ArrayList<>();
  private final Map<String, List<double[]>> test = new LinkedHashMap<>();

  /**
   * @param xAxis the training progress axis (rounds, epochs)
   * @param dataName the data set, put before the chart titles ("Fashion-MNIST: loss"), or ""
   */
  public TrainingCurves(Axis xAxis, String dataName) {
    this.xAxis = Objects.requireNonNull(xAxis, "xAxis");
    this.dataName = Objects.requireNonNull(dataName, "dataName");
  }

  /** The mean training loss of the round that ended at {@code x}. */
  public void addTraining(double x, double meanLoss) {
    trainX.add(x);
    trainLoss.add(meanLoss);
  }

  /** The test outputs (for example loss and accuracy) measured at {@code x}. */
  public void addTest(double x, Map<String, ? extends Number> metrics) {
    for (Map.Entry<String, ? extends Number> e : metrics.entrySet()) {
      test.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
          .add(new double[] {x, e.getValue().doubleValue()});
    }
  }

  public boolean isEmpty() {
    return trainX.isEmpty() && test.isEmpty();
  }

  /** The loss chart, and beside it the chart of the other test outputs when there are any. */
  public Figure toFigure() {
    List<Series> losses = new ArrayList<>();
    List<Series> others = new ArrayList<>();
    if (!trainX.isEmpty()) {
      losses.add(Series.of("training loss (mean per round)", trainX, trainLoss).withColour(0));
    }
    int slot = 1;
    for (Map.Entry<String, List<double[]>> e : test.entrySet()) {
      boolean isLoss = e.getKey().toLowerCase(Locale.ROOT).contains("loss");
      Series s =
          testSeries("test " + e.getKey(), e.getValue())
              .withColour(isLoss ? 1 : slot++)
              .withMarker(Series.Marker.CIRCLE);
      (isLoss ? losses : others).add(s);
    }
    // Side by side, both charts show the same x range and keep a legend alike, so that their
    // plot areas, and so their x axes, line up.
    Axis x = sharedRange(losses, others);
    XyChart.Legend legend = losses.size() >= 2 ? XyChart.Legend.BOTTOM : XyChart.Legend.NONE;
    XyChart lossChart =
        chart(losses.size() == 1 ? "training loss" : "loss", x, "loss", losses, legend);
    if (others.isEmpty()) {
      return lossChart;
    }
    boolean accuracyOnly = others.size() == 1 && others.get(0).name().equals("test accuracy");
    String quantity = accuracyOnly ? "test accuracy" : "test outputs";
    return ChartGrid.row(
        lossChart, chart(quantity, x, accuracyOnly ? "accuracy" : "value", others, legend));
  }

  private Axis sharedRange(List<Series> losses, List<Series> others) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (List<Series> group : List.of(losses, others)) {
      for (Series s : group) {
        for (int i = 0; i < s.size(); i++) {
          lo = Math.min(lo, s.x(i));
          hi = Math.max(hi, s.x(i));
        }
      }
    }
    return lo < hi && !xAxis.hasRange() ? xAxis.withRange(lo, hi) : xAxis;
  }

  private XyChart chart(
      String quantity, Axis x, String yLabel, List<Series> series, XyChart.Legend l) {
    String title =
        dataName.isEmpty()
            ? Character.toUpperCase(quantity.charAt(0)) + quantity.substring(1)
            : dataName + ": " + quantity;
    XyChart.Builder b =
        XyChart.builder().optTitle(title).setXAxis(x).setYAxis(Axis.linear(yLabel)).optLegend(l);
    series.forEach(b::addSeries);
    return b.build();
  }

  private static Series testSeries(String name, List<double[]> points) {
    double[] x = new double[points.size()];
    double[] y = new double[points.size()];
    for (int i = 0; i < x.length; i++) {
      x[i] = points.get(i)[0];
      y[i] = points.get(i)[1];
    }
    return Series.of(name, x, y);
  }
}
