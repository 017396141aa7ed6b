package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.Averaging;

/**
 * Section 21: time to accuracy of the synchronous modes (plain, all-reduce) against the
 * asynchronous ones (Downpour, asynchronous EASGD) on LeNet, side by side in one run.
 */
final class AsyncTtaSection {
  private static final int TAU = 10;
  private static final double TARGET_ACCURACY = 0.85;

  private final BenchRun run;
  private final TimedCurve.Settings timing;

  AsyncTtaSection(BenchRun run) {
    this.run = run;
    boolean quick = run.opt().quick();
    this.timing = new TimedCurve.Settings(quick ? 10 : 60, quick ? 2 : 10, TARGET_ACCURACY);
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    NetDefinition def = BenchRun.lenet();
    StringBuilder rows = new StringBuilder();
    double budget = timing.budgetSeconds();
    for (Averaging avg :
        List.of(
            Averaging.PLAIN,
            Averaging.ALL_REDUCE,
            Averaging.downpour(),
            Averaging.asyncElastic(TimeToAccuracySection.EASGD_ALPHA))) {
      TimedCurve c = TimedCurve.train(run, BenchRun.config(def, TAU, 2).optAveraging(avg), timing);
      log("async tta %s: best %.4f, last %.4f", avg, c.accuracy().best(), c.accuracy().last());
      rows.append(row(avg, c));
    }
    StringBuilder md = new StringBuilder("### 21. Asynchronous training: time to accuracy\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "LeNet (`BenchRun.lenet()`) on Fashion-MNIST, 2 workers on `local[2]`, 1 BLAS thread"
                + " each, tau %d, %.0f s of training per run (the rounds' wall time; the test on"
                + " the 10,000 test images every %.0f s, outside the clock: an asynchronous job"
                + " may run up to one round of steps meanwhile). Asynchronous EASGD α=%.2f;"
                + " Downpour adds each update divided by the worker count; staleness bound %d."
                + " Load average %s before; the machine was shared with other builds.%n%n"
                + "| averaging | accuracy at %.0f s | at %.0f s | best | epochs | time to %.2f"
                + " |%n|---|---:|---:|---:|---:|---|%n",
            TAU,
            budget,
            timing.testEverySeconds(),
            TimeToAccuracySection.EASGD_ALPHA,
            Averaging.DEFAULT_STALENESS,
            load,
            budget / 2,
            budget,
            TARGET_ACCURACY));
    md.append(rows);
    run.write("loop-async-tta", md);
  }

  private String row(Averaging avg, TimedCurve curve) {
    double budget = timing.budgetSeconds();
    return String.format(
        Locale.ROOT,
        "| %s | %s | %s |%n",
        avg,
        curve.accuracyCells(budget / 2, budget),
        curve.summaryCells("%.0f s"));
  }
}
