package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.BATCH;
import static org.sparknet.bench.loop.BenchRun.LR;
import static org.sparknet.bench.loop.BenchRun.SCALE;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.caffe.CaffeNet;

/**
 * Section 3: test accuracy against tau at equal examples seen (Figure 1b of the SparkNet paper),
 * with one raw solver over the same examples as the reference.
 */
final class TauSection {
  private final BenchRun run;
  private final StringBuilder rows = new StringBuilder();
  private final List<BenchCharts.TauRun> runs = new ArrayList<>();

  TauSection(BenchRun run) {
    this.run = run;
  }

  void run() {
    String load = Machine.loadAverage();
    int steps = run.opt().accuracySteps();
    NetDefinition def = BenchRun.lenet();
    for (int tau : run.opt().accuracyTaus()) {
      trainWithTau(def, tau, steps / tau);
    }
    int refSteps = WORKERS * steps;
    Reference reference = rawSolver(def, refSteps);
    long examples = (long) steps * WORKERS * BATCH;
    if (run.opt().plot() != null) {
      BenchCharts.accuracyVersusTau(runs, examples, reference.chart()).writePng(run.opt().plot());
    }
    StringBuilder md = new StringBuilder();
    md.append("### 3. Accuracy versus tau at equal examples seen\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Like Figure 1b of the SparkNet paper: 2 workers on `local[2]`, each run %d solver"
                + " steps per worker (%,d examples, %.2f epochs of Fashion-MNIST's %,d training"
                + " images; a step count that every tau divides),"
                + " LeNet, SGD with momentum 0.9 and lr %.2f (inv policy), seed %d, a fresh trainer"
                + " per tau. Test accuracy on the %,d test images after the last round; wall time"
                + " of the training rounds only (data caching and testing excluded); one run per"
                + " tau. The last row is one raw CaffeNet solver that sees the same examples in"
                + " %d steps. Load average %s before.%n%n",
            steps,
            examples,
            (double) examples / run.train().count(),
            run.train().count(),
            LR,
            SEED,
            run.test().count(),
            refSteps,
            load));
    md.append(
        "| tau | rounds | examples | test accuracy | test loss | last train loss |"
            + " train wall (s) | images/s | overhead share |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    md.append(rows).append(reference.row());
    if (run.opt().plot() != null) {
      md.append("\nPlot: `").append(run.opt().plot()).append("` (x: tau, log scale).\n");
    }
    run.write("loop-tau", md);
  }

  private void trainWithTau(NetDefinition def, int tau, int rounds) {
    try (SparkNetTrainer trainer = run.trainer(def, tau, WORKERS)) {
      trainer.setTrainingData(run.trainRdd());
      trainer.setValidationData(run.testRdd());
      long t0 = System.nanoTime();
      long seen = 0;
      double loss = Double.NaN;
      long over = 0;
      long roundWall = 0;
      for (int r = 0; r < rounds; r++) {
        RoundMetrics m = trainer.trainRound();
        seen += m.examples();
        loss = m.meanLoss();
        over += BenchRun.overheadMillis(m);
        roundWall += m.wallMillis();
      }
      double secs = seconds(t0);
      Map<String, Float> t = trainer.test();
      float a = t.get("accuracy");
      log("tau=%d: %d rounds, test accuracy %.4f, %.1f s", tau, rounds, a, secs);
      runs.add(new BenchCharts.TauRun(tau, a, secs));
      rows.append(
          String.format(
              Locale.ROOT,
              "| %d | %d | %,d | %.4f | %.4f | %.3f | %.1f | %,.0f | %.0f %% |%n",
              tau,
              rounds,
              seen,
              a,
              t.getOrDefault("loss", Float.NaN),
              loss,
              secs,
              seen / secs,
              100.0 * over / Math.max(1, roundWall)));
    }
  }

  /** The reference's table row and its point on the chart. */
  private record Reference(String row, BenchCharts.Reference chart) {}

  /** One raw solver over the whole training set, the same number of examples. */
  private Reference rawSolver(NetDefinition def, int refSteps) {
    DataShard all = run.trainShard(0, 0, run.train().count());
    DataShard testShard = BenchRun.pack(0, run.test().read(0, run.test().count(), SCALE));
    try (CaffeNet net = CaffeNet.create(def)) {
      ShardFeeder feeder = new ShardFeeder(all, "data", "label", SEED, 0, 0);
      long t0 = System.nanoTime();
      float loss = net.train(refSteps, feeder);
      double secs = seconds(t0);
      int testBatch = net.inputShapes(Phase.TEST).get("data").dim(0);
      Map<String, Float> t =
          net.test(
              Math.max(1, run.test().count() / testBatch),
              ShardFeeder.sequential(testShard, "data", "label"));
      log(
          "one raw solver: %d steps, test accuracy %.4f, %.1f s",
          refSteps, t.get("accuracy"), secs);
      return new Reference(
          String.format(
              Locale.ROOT,
              "| 1 raw solver (no Spark) | %d steps | %,d | %.4f | %.4f | %.3f (mean) | %.1f |"
                  + " %,.0f | – |%n",
              refSteps,
              (long) refSteps * BATCH,
              t.get("accuracy"),
              t.getOrDefault("loss", Float.NaN),
              loss,
              secs,
              refSteps * BATCH / secs),
          new BenchCharts.Reference("1 raw solver, same examples", t.get("accuracy"), secs));
    }
  }
}
