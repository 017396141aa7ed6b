package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.Averaging;

/**
 * Section 9: test accuracy against training time for plain averaging and EASGD at each tau, and
 * when each reaches the target accuracy.
 */
final class TimeToAccuracySection {
  /** EASGD moving rate: beta = workers x alpha = 0.9, the value Zhang et al. recommend. */
  static final double EASGD_ALPHA = 0.45;

  private static final double TARGET_ACCURACY = 0.91;

  private final BenchRun run;
  private final TimedCurve.Settings timing;
  private final StringBuilder rows = new StringBuilder();
  private final List<BenchCharts.Run> runs = new ArrayList<>();

  TimeToAccuracySection(BenchRun run) {
    this.run = run;
    this.timing =
        new TimedCurve.Settings(
            run.opt().ttaSeconds(), run.opt().quick() ? 2 : 15, TARGET_ACCURACY);
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    NetDefinition def = BenchRun.lenet();
    for (int tau : run.opt().ttaTaus()) {
      for (Averaging avg : List.of(Averaging.PLAIN, Averaging.elastic(EASGD_ALPHA))) {
        TimedCurve c =
            TimedCurve.train(run, BenchRun.config(def, tau, 2).optAveraging(avg), timing);
        String averaging = avg.isElastic() ? "EASGD α=" + EASGD_ALPHA : "plain";
        String name = String.format(Locale.ROOT, "tau=%d, %s", tau, averaging);
        log(
            "tta %s: best %.4f, last %.4f, %s",
            name,
            c.accuracy().best(),
            c.accuracy().last(),
            c.reachedTarget()
                ? "0.91 at " + Math.round(c.timeToTarget()) + " s"
                : "target not reached");
        runs.add(
            new BenchCharts.Run(
                name,
                run.opt().ttaTaus().indexOf(tau),
                avg.isElastic(),
                c.accuracy().xs(),
                c.accuracy().ys()));
        rows.append(row(tau, averaging, c));
      }
    }
    report(load);
  }

  private String row(int tau, String averaging, TimedCurve curve) {
    double budget = timing.budgetSeconds();
    return String.format(
        Locale.ROOT,
        "| %d | %s | %s | %.4f | %s |%n",
        tau,
        averaging,
        curve.accuracyCells(budget / 5, budget * 2 / 5, budget),
        curve.accuracy().last(),
        curve.summaryCells("**%.0f s**"));
  }

  private void report(String load) {
    double budget = timing.budgetSeconds();
    Path png = null;
    if (run.opt().plot() != null) {
      png = run.opt().plot().resolveSibling("time-to-accuracy.png");
      BenchCharts.timeToAccuracy(runs, TARGET_ACCURACY, budget).writePng(png);
    }
    StringBuilder md = new StringBuilder("### 9. Time to accuracy\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "LeNet (`LeNet.definition(42, 0.03)`: lenet_solver's SGD, momentum 0.9, inv policy, lr"
                + " 0.03) on Fashion-MNIST, 2 workers on `local[2]`, 1 BLAS thread each, for %.0f s"
                + " of training per run; plain model averaging and elastic averaging (EASGD,"
                + " α=%.2f, β = 2α = 0.9). The clock counts the training rounds' wall time only;"
                + " the test on the 10,000 test images runs every %.0f s of it, outside the clock."
                + " One run per row, seed 42. Target: test accuracy ≥ %.2f within 5 minutes on 2"
                + " cores. Load average %s before.%n%n",
            budget,
            EASGD_ALPHA,
            timing.testEverySeconds(),
            TARGET_ACCURACY,
            load));
    md.append(
        String.format(
            Locale.ROOT,
            "| tau | averaging | accuracy at %.0f s | at %.0f s | at %.0f s | at the end | best |"
                + " epochs |"
                + " time to %.2f |%n|---:|---|---:|---:|---:|---:|---:|---:|---|%n",
            budget / 5,
            budget * 2 / 5,
            budget,
            TARGET_ACCURACY));
    md.append(rows);
    if (png != null) {
      md.append("\nPlot: `").append(png).append("` (a curve per run; dashed: EASGD).\n");
    }
    run.write("loop-tta", md);
  }
}
