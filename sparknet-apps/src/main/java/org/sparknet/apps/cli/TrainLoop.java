package org.sparknet.apps.cli;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.RoundProgress;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TestNetResult;
import org.sparknet.apps.plot.TrainingCurves;

/**
 * The rounds of {@code train}, as the solver file and the flags say: stop at --rounds or max_iter
 * (whichever comes first), test every test_interval steps, a line every display steps, a snapshot
 * every snapshot steps and on SIGINT/SIGTERM. Steps are counted per worker, as Caffe counts
 * iterations; a round runs tau steps, so each of these happens after the round that reaches a
 * multiple of its interval (exactly on the multiple when tau divides it).
 */
final class TrainLoop {
  /**
   * How the loop ended: every test net's last results (empty without test data) and what stopped
   * it.
   */
  record Outcome(List<TestNetResult> lastTests, String stoppedBy) {}

  private final SparkNetTrainer trainer;
  private final SolverSettings settings;
  private final Integer rounds;
  private final int plannedRounds;
  private final boolean hasTest;
  private final Snapshots snapshots;
  private final StopSignals signals;
  private final TrainingCurves curves;
  private final PrintStream out;

  /** The parts a loop uses. {@code plannedRounds} (0: unknown) sizes the ETA. */
  record Parts(
      SparkNetTrainer trainer,
      SolverSettings settings,
      Integer rounds,
      int plannedRounds,
      boolean hasTest,
      Snapshots snapshots,
      StopSignals signals,
      TrainingCurves curves,
      PrintStream out) {}

  TrainLoop(Parts p) {
    this.trainer = p.trainer();
    this.settings = p.settings();
    this.rounds = p.rounds();
    this.plannedRounds = p.plannedRounds();
    this.hasTest = p.hasTest();
    this.snapshots = p.snapshots();
    this.signals = p.signals();
    this.curves = p.curves();
    this.out = p.out();
  }

  Outcome run() {
    long start = System.nanoTime();
    int done = 0;
    List<TestNetResult> last = List.of();
    long testedAt = -1;
    while (!finished(trainer.round()) && signals.received() == null) {
      long before = trainer.iteration();
      // the trainer tests inside the round, so that the results reach the metrics file
      RoundMetrics m =
          trainer.trainRound(
              it ->
                  hasTest
                      && (finished(trainer.round())
                          || signals.received() != null
                          || SolverSettings.due(settings.testInterval(), before, it)));
      done++;
      curves.addTraining(m.round(), m.meanLoss());
      boolean end = finished(m.round()) || signals.received() != null;
      List<TestNetResult> test = tested(m);
      if (!test.isEmpty()) {
        last = test;
        testedAt = m.iteration();
        addCurves(m.round(), test);
      }
      if (end
          || !test.isEmpty()
          || settings.display().value() == 0
          || SolverSettings.due(settings.display(), before, m.iteration())) {
        out.println(line(m, test, System.nanoTime() - start, done));
      }
      if (SolverSettings.due(settings.snapshot(), before, m.iteration())) {
        snapshots.write(trainer.getWeights(), m.iteration());
      }
    }
    String stoppedBy = signals.received();
    if (stoppedBy != null && !snapshots.has(trainer.iteration())) {
      snapshots.write(trainer.getWeights(), trainer.iteration());
    }
    if (hasTest && testedAt != trainer.iteration()) {
      last = trainer.testAll(); // resumed at or past the end, or stopped before the first round
    }
    return new Outcome(last, stoppedBy);
  }

  /** Every test net's results of round {@code m}, or empty when it did not test. */
  private static List<TestNetResult> tested(RoundMetrics m) {
    if (!m.testNets().isEmpty()) {
      return m.testNets();
    }
    return m.validation().isEmpty()
        ? List.of()
        : List.of(new TestNetResult(0, List.of(), m.validation()));
  }

  /** One curve per output of each test net, named by the net when there are several. */
  private void addCurves(int round, List<TestNetResult> tests) {
    if (tests.size() == 1) {
      curves.addTest(round, tests.get(0).outputs());
      return;
    }
    for (TestNetResult t : tests) {
      Map<String, Float> named = new TreeMap<>();
      t.outputs().forEach((k, v) -> named.put(t.describe() + " " + k, v));
      curves.addTest(round, named);
    }
  }

  /** Test net #0's outputs alone, or every test net's named as {@code caffe train} names them. */
  static String format(List<TestNetResult> tests) {
    return tests.size() == 1
        ? TrainCommand.format(tests.get(0).outputs())
        : RoundProgress.testNetsText(tests);
  }

  /**
   * At --rounds, or at the trainer's last step: max_iter, which train passes to it, or its plan.
   */
  private boolean finished(int round) {
    return trainer.budgetSpent() || (rounds != null && round >= rounds);
  }

  private String line(RoundMetrics m, List<TestNetResult> test, long elapsedNanos, int done) {
    StringBuilder sb = RoundProgress.lineStart(m.round(), plannedRounds);
    sb.append(
        String.format(
            Locale.ROOT,
            "  iter %6d  loss %.4f  %,6.0f ex/s",
            m.iteration(),
            m.meanLoss(),
            m.imagesPerSecond()));
    if (!test.isEmpty()) {
      sb.append("  test ").append(format(test));
    }
    long left = plannedRounds > 0 ? Math.max(0, plannedRounds - m.round()) : -1;
    return RoundProgress.lineEnd(sb, elapsedNanos, done, left);
  }
}
