package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.Locale;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;

/** Section 4: the demo's loop in this JVM, test accuracy at every epoch boundary. */
record DemoSection(BenchRun bench) {
  private static final int TAU = BenchRun.DEMO_TAU;

  void run() {
    String load = Machine.loadAverage();
    int count = bench.train().count();
    int rounds = bench.demoRounds();
    StringBuilder rows = new StringBuilder();
    long start = System.nanoTime(); // as in DemoCommand: data caching included
    double finalAccuracy = Double.NaN;
    double epoch = 0;
    try (SparkNetTrainer trainer = bench.trainer(BenchRun.lenet(), TAU, WORKERS)) {
      trainer.setTrainingData(bench.trainRdd());
      trainer.setValidationData(bench.testRdd());
      long seen = 0;
      int epochsDone = 0;
      long trainNanos = 0;
      for (int r = 1; r <= rounds; r++) {
        long t0 = System.nanoTime();
        RoundMetrics m = trainer.trainRound();
        trainNanos += System.nanoTime() - t0;
        seen += m.examples();
        epoch = (double) seen / count;
        if ((int) Math.floor(epoch + 1e-9) > epochsDone || r == rounds) {
          epochsDone = (int) Math.floor(epoch + 1e-9);
          float a = trainer.test().get("accuracy");
          finalAccuracy = a;
          double elapsed = seconds(start);
          log("demo: epoch %.2f round %d test accuracy %.4f at %.1f s", epoch, r, a, elapsed);
          rows.append(
              String.format(
                  Locale.ROOT,
                  "| %.2f | %d | %.4f | %.4f | %.1f | %,.0f |%n",
                  epoch,
                  r,
                  a,
                  m.meanLoss(),
                  elapsed,
                  seen / (trainNanos / 1e9)));
        }
      }
    }
    double total = seconds(start);
    StringBuilder md = new StringBuilder();
    md.append("### 4. The demo's curve\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "The equivalent of `bin/sparknet demo` (the same loop as `DemoCommand`, in this JVM):"
                + " LeNet on Fashion-MNIST, 2 workers on `local[2]`, tau=%d, lr %.2f, seed %d,"
                + " %d rounds (%.2f epochs), test accuracy at each epoch boundary and at the end."
                + " Elapsed time from the start (training data caching included, as the demo"
                + " counts it) to the end of that test. Load average %s before.%n%n",
            TAU,
            LR,
            SEED,
            rounds,
            epoch,
            load));
    md.append(
        "| epoch | round | test accuracy | round train loss | elapsed (s) | train images/s so"
            + " far |\n");
    md.append("|---:|---:|---:|---:|---:|---:|\n");
    md.append(rows);
    md.append(
        String.format(
            Locale.ROOT,
            "%nFinal test accuracy %.4f after %.2f epochs in %.0f s (`bin/sparknet demo`"
                + " itself, in its own JVM: see \"The main job\" above). Load average after: %s.%n",
            finalAccuracy,
            epoch,
            total,
            Machine.loadAverage()));
    MarkdownSections.rewrite(bench.opt().output(), "loop-demo", md.toString());
  }
}
