package org.sparknet.bench.loop;

import static org.sparknet.bench.loop.BenchRun.BATCH;
import static org.sparknet.bench.loop.BenchRun.SEED;
import static org.sparknet.bench.loop.BenchRun.WORKERS;
import static org.sparknet.bench.loop.BenchRun.log;
import static org.sparknet.bench.loop.BenchRun.seconds;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.caffe.CaffeNet;

/**
 * Section 1: scaling efficiency. One raw CaffeNet alone, two at once on two threads, and SparkNet
 * on {@code local[2]}, in images/s, taking turns in each repetition.
 */
final class ThroughputSection {
  static final int WARMUP_STEPS = 20;

  private final BenchRun run;
  private final List<Double> solo = new ArrayList<>();
  private final List<Double> pair = new ArrayList<>();
  private final List<Double> sparkNet = new ArrayList<>();
  private final List<Double> timed = new ArrayList<>();
  private double tauSeconds;

  ThroughputSection(BenchRun run) {
    this.run = run;
  }

  void run() throws Exception {
    String load = Machine.loadAverage();
    int tau = run.opt().throughputTau();
    int rounds = run.opt().throughputRounds();
    NetDefinition def = BenchRun.lenet();
    int half = run.train().count() / 2;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (CaffeNet a = CaffeNet.create(def);
        CaffeNet b = CaffeNet.create(def);
        SparkNetTrainer trainer = run.trainer(def, tau, WORKERS)) {
      ShardFeeder f0 = new ShardFeeder(run.trainShard(0, 0, half), "data", "label", SEED, 0, 0);
      ShardFeeder f1 =
          new ShardFeeder(
              run.trainShard(1, half, run.train().count()), "data", "label", SEED, 1, 0);
      Solvers raw = new Solvers(pool, a, f0, b, f1);
      raw.alone(WARMUP_STEPS);
      raw.together(WARMUP_STEPS);
      warmUp(trainer);
      try (SparkNetTrainer timedTrainer = timedTrainer(def, trainer, tau)) {
        for (int r = 0; r < run.opt().repeats(); r++) {
          repetition(r, raw, trainer, tau, rounds);
          timedTrainer.trainRound();
          timed.add(BenchRun.imagesPerSecond(timedTrainer, rounds));
          log(
              "throughput rep %d: SparkNet, %.2f s rounds: %.0f img/s",
              r + 1, tauSeconds, timed.get(r));
        }
      }
    } finally {
      pool.shutdownNow();
    }
    report(load, tau, rounds);
  }

  /**
   * SparkNet with time-bounded rounds (--tau-seconds) as long as a tau-step round's compute here:
   * each worker steps until the deadline, so neither waits for the other at the end of a round.
   */
  private SparkNetTrainer timedTrainer(NetDefinition def, SparkNetTrainer fixed, int tau) {
    tauSeconds = fixed.trainRound().computeMillis() / 1000.0;
    SparkNetTrainer t = run.trainer(BenchRun.config(def, tau, WORKERS).optTauSeconds(tauSeconds));
    try {
      warmUp(t);
      return t;
    } catch (RuntimeException e) {
      t.close();
      throw e;
    }
  }

  /** Sets the training data and runs the warm-up rounds. */
  private void warmUp(SparkNetTrainer t) {
    t.setTrainingData(run.trainRdd());
    for (int k = 0; k < LoopBenchmark.WARMUP_ROUNDS; k++) {
      t.trainRound(); // the first builds the executors' nets
    }
  }

  /** Two raw nets, each on its half of the data, run alone or both at once. */
  private record Solvers(
      ExecutorService pool, CaffeNet a, ShardFeeder f0, CaffeNet b, ShardFeeder f1) {
    void alone(int steps) {
      a.train(steps, f0);
    }

    void together(int steps) throws Exception {
      Future<Float> fa = pool.submit(() -> a.train(steps, f0));
      Future<Float> fb = pool.submit(() -> b.train(steps, f1));
      fa.get();
      fb.get();
    }
  }

  private void repetition(int r, Solvers raw, SparkNetTrainer trainer, int tau, int rounds)
      throws Exception {
    int steps = tau * rounds;
    // Each measurement follows a short unmeasured run of its own kind (tau steps, one round):
    // the three take turns on the same cores and caches, which real training never does.
    raw.alone(tau);
    long t0 = System.nanoTime();
    raw.alone(steps);
    double s = (double) steps * BATCH / seconds(t0);

    raw.together(tau);
    t0 = System.nanoTime();
    raw.together(steps);
    double p = 2.0 * steps * BATCH / seconds(t0);

    trainer.trainRound();
    t0 = System.nanoTime();
    List<RoundMetrics> ms = new ArrayList<>();
    long examples = 0;
    for (int k = 0; k < rounds; k++) {
      RoundMetrics m = trainer.trainRound();
      ms.add(m);
      examples += m.examples();
    }
    double sn = examples / seconds(t0);
    solo.add(s);
    pair.add(p);
    sparkNet.add(sn);
    log(
        "throughput rep %d: raw 1 net %.0f img/s, raw 2 nets %.0f img/s, SparkNet %.0f img/s"
            + " (%.3f of 2x one net, %.3f of two at once); round overheads (ms) %s",
        r + 1,
        s,
        p,
        sn,
        sn / (2 * s),
        sn / p,
        ms.stream().map(m -> m.wallMillis() - m.computeMillis()).toList());
  }

  private void report(String load, int tau, int rounds) {
    int steps = tau * rounds;
    List<Double> vsSolo = new ArrayList<>();
    List<Double> vsPair = new ArrayList<>();
    for (int i = 0; i < sparkNet.size(); i++) {
      vsSolo.add(sparkNet.get(i) / (2 * solo.get(i)));
      vsPair.add(sparkNet.get(i) / pair.get(i));
    }
    List<Double> timedVsSolo = new ArrayList<>();
    for (int i = 0; i < timed.size(); i++) {
      timedVsSolo.add(timed.get(i) / (2 * solo.get(i)));
    }
    Spread effSolo = Spread.of(vsSolo);
    Spread effPair = Spread.of(vsPair);
    StringBuilder md = new StringBuilder();
    md.append("### 1. Scaling efficiency (images/s)\n\n");
    md.append(
        String.format(
            Locale.ROOT,
            "Each repetition runs, one after the other: one raw `CaffeNet` alone (%d steps of batch"
                + " %d on the main thread), two raw `CaffeNet`s at once (%d steps each on two"
                + " threads, each on its half of the data), and SparkNet on `local[2]` with 2"
                + " partitions (%d rounds of tau=%d, each image counted once). All in one JVM with"
                + " 1 BLAS thread per solver, after a warm-up (%d raw steps alone and %d at once, %d"
                + " SparkNet rounds, the first of which builds the executors' nets). Raw images/s count the solver loop"
                + " with its feeder; SparkNet's count the whole rounds (broadcast, tasks,"
                + " averaging). In each repetition every measurement follows an unmeasured run of"
                + " its own kind (tau raw steps alone, tau at once, one SparkNet round): the three"
                + " take turns on the same cores and caches. %d repetitions: median (min–max)."
                + " Load average %s before.%n%n",
            steps,
            BATCH,
            steps,
            rounds,
            tau,
            WARMUP_STEPS,
            WARMUP_STEPS,
            LoopBenchmark.WARMUP_ROUNDS,
            run.opt().repeats(),
            load));
    md.append("| What runs | images/s |\n|---|---:|\n");
    md.append("| 1 raw CaffeNet, 1 thread | ")
        .append(Spread.of(solo).format("%,.0f"))
        .append(" |\n");
    md.append("| 2 raw CaffeNets at once, 2 threads | ")
        .append(Spread.of(pair).format("%,.0f"))
        .append(" |\n");
    md.append(String.format(Locale.ROOT, "| SparkNet, local[2], 2 partitions, tau=%d | ", tau))
        .append(Spread.of(sparkNet).format("%,.0f"))
        .append(" |\n");
    md.append(
            String.format(
                Locale.ROOT,
                "| SparkNet, the same, rounds of %.2f s (`--tau-seconds`: the tau=%d rounds'"
                    + " compute, taken after the warm-up) | ",
                tauSeconds,
                tau))
        .append(Spread.of(timed).format("%,.0f"))
        .append(" |\n\n");
    md.append("| Scaling efficiency | ratio | target 0.95 |\n|---|---:|---|\n");
    md.append("| SparkNet ÷ (2 × one raw net) | ")
        .append(effSolo.format("%.3f"))
        .append(" | ")
        .append(BenchRun.metOrNot(effSolo.median() >= 0.95))
        .append(" |\n");
    md.append("| SparkNet with time-bounded rounds ÷ (2 × one raw net) | ")
        .append(Spread.of(timedVsSolo).format("%.3f"))
        .append(" | ")
        .append(BenchRun.metOrNot(Spread.of(timedVsSolo).median() >= 0.95))
        .append(" |\n");
    md.append("| SparkNet ÷ two raw nets at once (the ceiling on this box) | ")
        .append(effPair.format("%.3f"))
        .append(" | ")
        .append(BenchRun.metOrNot(effPair.median() >= 0.95))
        .append(" |\n");
    run.write("loop-throughput", md);
  }
}
