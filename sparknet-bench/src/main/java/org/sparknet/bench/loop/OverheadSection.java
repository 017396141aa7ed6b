package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.BATCH;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.median;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;

/** Section 2: the per-round overhead of SparkNet on {@code local[2]} for each tau. */
final class OverheadSection {
  private final BenchRun run;

  OverheadSection(BenchRun run) {
    this.run = run;
  }

  void run() {
    String load = Machine.loadAverage();
    StringBuilder md = new StringBuilder();
    md.append("### 2. Per-round overhead\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "SparkNet on `local[2]`, 2 partitions, LeNet batch %d. From `RoundMetrics`: compute is"
                + " the slowest worker's solver time; overhead = broadcast + aggregate +"
                + " scheduling = round wall time − compute. One trainer per tau, %d warm-up"
                + " rounds, then %d repetitions of the rounds shown, one after the other. Share:"
                + " median (min–max) over repetitions; times: median per round over all measured"
                + " rounds. Load average %s before.%n%n",
            BATCH,
            LoopBenchmark.WARMUP_ROUNDS,
            run.opt().repeats(),
            load));
    md.append(
        "| tau | rounds × reps | round (ms) | compute (ms) | broadcast (ms) | aggregate (ms) |"
            + " scheduling (ms) | overhead share | target |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for (int tau : run.opt().overheadTaus()) {
      md.append(row(tau, measure(BenchRun.lenet(), tau)));
    }
    run.write("loop-overhead", md);
  }

  /** Its own trainer: the rounds of section 1 alternate with raw solver runs in the same JVM. */
  private List<List<RoundMetrics>> measure(NetDefinition def, int tau) {
    List<List<RoundMetrics>> reps = new ArrayList<>();
    try (SparkNetTrainer trainer = run.trainer(def, tau, WORKERS)) {
      trainer.setTrainingData(run.trainRdd());
      for (int k = 0; k < LoopBenchmark.WARMUP_ROUNDS; k++) {
        trainer.trainRound();
      }
      for (int r = 0; r < run.opt().repeats(); r++) {
        List<RoundMetrics> ms = new ArrayList<>();
        for (int k = 0; k < run.opt().overheadRounds(tau); k++) {
          ms.add(trainer.trainRound());
        }
        reps.add(ms);
      }
    }
    return reps;
  }

  private static String row(int tau, List<List<RoundMetrics>> reps) {
    List<Double> shares = new ArrayList<>();
    List<RoundMetrics> all = new ArrayList<>();
    for (List<RoundMetrics> ms : reps) {
      double over = BenchRun.sumOf(ms, BenchRun::overheadMillis);
      double wall = BenchRun.sumOf(ms, RoundMetrics::wallMillis);
      shares.add(100.0 * over / Math.max(1, wall));
      all.addAll(ms);
    }
    Spread share = Spread.of(shares);
    log("overhead tau=%d: %s %% of the round", tau, share.format("%.1f"));
    String target = tau == 50 ? "≤ 3 %: " + BenchRun.metOrNot(share.median() <= 3) : "";
    return String.format(
        Locale.ROOT,
        "| %d | %d × %d | %.0f | %.0f | %.0f | %.0f | %.0f | %s %% | %s |%n",
        tau,
        reps.get(0).size(),
        reps.size(),
        median(all, RoundMetrics::wallMillis),
        median(all, RoundMetrics::computeMillis),
        median(all, RoundMetrics::broadcastMillis),
        median(all, RoundMetrics::aggregateMillis),
        median(all, RoundMetrics::schedulingMillis),
        share.format("%.1f"),
        target);
  }
}
