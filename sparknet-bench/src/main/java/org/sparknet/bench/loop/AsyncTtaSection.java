package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.log;

import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;

/**
 * Section 21: time to accuracy of the synchronous modes (plain, all-reduce) against the
 * asynchronous ones (Downpour, asynchronous EASGD) on LeNet, side by side in one run.
 */
final class AsyncTtaSection {
  private static final int TAU = 10;
  private static final double TARGET_ACCURACY = 0.85;

  private final BenchRun run;
  private final double budget;
  private final double testEvery;

  AsyncTtaSection(BenchRun run) {
    this.run = run;
    this.budget = run.opt().quick() ? 10 : 60;
    this.testEvery = run.opt().quick() ? 2 : 10;
  }

  void run() {
    String load = Machine.loadAverage();
    Sgemm.setThreads(1);
    NetDefinition def = BenchRun.lenet();
    StringBuilder rows = new StringBuilder();
    for (Averaging avg :
        List.of(
            Averaging.PLAIN,
            Averaging.ALL_REDUCE,
            Averaging.downpour(),
            Averaging.asyncElastic(TimeToAccuracySection.EASGD_ALPHA))) {
      rows.append(row(avg, train(def, avg)));
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
            testEvery,
            TimeToAccuracySection.EASGD_ALPHA,
            Averaging.DEFAULT_STALENESS,
            load,
            budget / 2,
            budget,
            TARGET_ACCURACY));
    md.append(rows);
    run.write("loop-async-tta", md);
  }

  private record Curve(AccuracyCurve accuracy, long seen) {}

  private Curve train(NetDefinition def, Averaging avg) {
    List<Double> xs = new java.util.ArrayList<>();
    List<Double> ys = new java.util.ArrayList<>();
    long seen = 0;
    try (SparkNetTrainer t = run.trainer(BenchRun.config(def, TAU, 2).optAveraging(avg))) {
      t.setTrainingData(run.trainRdd());
      t.setValidationData(run.testRdd());
      double clock = 0;
      double lastTest = 0;
      while (clock < budget) {
        RoundMetrics m = t.trainRound();
        clock += m.wallMillis() / 1000.0;
        seen += m.examples();
        if (clock - lastTest >= testEvery || clock >= budget) {
          lastTest = clock;
          xs.add(clock);
          ys.add((double) t.test().get("accuracy"));
        }
      }
    }
    Curve c = new Curve(new AccuracyCurve(xs, ys), seen);
    log("async tta %s: best %.4f, last %.4f", avg, c.accuracy().best(), c.accuracy().last());
    return c;
  }

  private String row(Averaging avg, Curve curve) {
    AccuracyCurve c = curve.accuracy();
    double reached = c.reaching(TARGET_ACCURACY);
    return String.format(
        Locale.ROOT,
        "| %s | %s | %s | %.4f | %.1f | %s |%n",
        avg,
        c.at(budget / 2),
        c.at(budget),
        c.best(),
        (double) curve.seen() / run.train().count(),
        Double.isNaN(reached) ? "not reached" : String.format(Locale.ROOT, "%.0f s", reached));
  }
}
