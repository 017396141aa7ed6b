package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sparknet.apps.plot.Axis;
import org.sparknet.apps.plot.ChartGrid;
import org.sparknet.apps.plot.Figure;
import org.sparknet.apps.plot.Series;
import org.sparknet.apps.plot.XyChart;

/** The loop benchmark's figures (bench/accuracy-vs-tau.png, bench/time-to-accuracy.png). */
final class BenchCharts {
  /** The palette slot of reference lines: grey. */
  private static final int GREY = 7;

  private BenchCharts() {}

  /** One SparkNet run of the tau sweep: test accuracy and training wall time. */
  record TauRun(int tau, double accuracy, double seconds) {}

  /** The sweep's baseline: one solver that saw the same examples. */
  record Reference(String name, double accuracy, double seconds) {}

  /** One run of the time-to-accuracy section: test accuracy against training seconds. */
  record Run(String name, int colour, boolean dashed, List<Double> seconds, List<Double> accuracy) {
    Run {
      seconds = List.copyOf(seconds);
      accuracy = List.copyOf(accuracy);
    }
  }

  /**
   * Two charts side by side, tau on a log axis: test accuracy after {@code examples} examples, and
   * training wall time; the reference as a dashed line on each.
   */
  static Figure accuracyVersusTau(List<TauRun> runs, long examples, Reference ref) {
    List<Double> tau = new ArrayList<>();
    List<Double> acc = new ArrayList<>();
    List<Double> secs = new ArrayList<>();
    for (TauRun r : runs) {
      tau.add((double) r.tau());
      acc.add(r.accuracy());
      secs.add(r.seconds());
    }
    Axis x = Axis.log("tau (solver steps per round)");
    String title = String.format(Locale.ROOT, "Test accuracy after %,d examples", examples);
    return ChartGrid.row(
        tauChart(title, x, "test accuracy", tau, acc, ref.name(), ref.accuracy()),
        tauChart("Training wall time", x, "seconds", tau, secs, ref.name(), ref.seconds()));
  }

  private static XyChart tauChart(
      String title,
      Axis x,
      String yLabel,
      List<Double> tau,
      List<Double> y,
      String refName,
      double refValue) {
    XyChart.Builder b =
        XyChart.builder()
            .optTitle(title)
            .setXAxis(x)
            .setYAxis(Axis.linear(yLabel))
            .optLegend(XyChart.Legend.BOTTOM)
            .addSeries(
                Series.of("SparkNet, 2 workers", tau, y)
                    .withMarker(Series.Marker.CIRCLE)
                    .withColour(0));
    if (!tau.isEmpty() && Double.isFinite(refValue)) {
      double lo = tau.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
      double hi = tau.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
      b.addSeries(
          Series.of(refName, new double[] {lo, hi}, new double[] {refValue, refValue})
              .withLine(Series.Line.DASHED)
              .withColour(GREY));
    }
    return b.build();
  }

  /**
   * All runs on one chart, the target accuracy as a dotted line across the time budget (or as far
   * as the last run's last round went past it).
   */
  static XyChart timeToAccuracy(List<Run> runs, double target, double budgetSeconds) {
    double end = budgetSeconds;
    for (Run r : runs) {
      for (double s : r.seconds()) {
        end = Math.max(end, s);
      }
    }
    XyChart.Builder b =
        XyChart.builder()
            .optTitle("Test accuracy against training time")
            .setXAxis(Axis.linear("training seconds").withRange(0, budgetSeconds))
            .setYAxis(Axis.linear("test accuracy"))
            .optLegend(XyChart.Legend.BOTTOM)
            .optSize(900, 560);
    for (Run r : runs) {
      b.addSeries(
          Series.of(r.name(), r.seconds(), r.accuracy())
              .withLine(r.dashed() ? Series.Line.DASHED : Series.Line.SOLID)
              .withColour(r.colour()));
    }
    b.addSeries(
        Series.of(
                String.format(Locale.ROOT, "target %.2f", target),
                new double[] {0, end},
                new double[] {target, target})
            .withLine(Series.Line.DOTTED)
            .withColour(GREY));
    return b.build();
  }
}
