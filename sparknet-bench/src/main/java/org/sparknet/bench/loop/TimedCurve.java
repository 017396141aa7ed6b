package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.function.DoubleSupplier;
import java.util.function.Supplier;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;

/**
 * Test accuracy against training time for one run on a fixed budget of training seconds. The
 * time-to-accuracy sections all measure their runs through {@link #train}, so that their curves are
 * clocked and sampled the same way and their tables can be read side by side.
 *
 * @param accuracy test accuracy at training seconds
 * @param epochs the examples trained on, in passes over the training set
 * @param timeToTarget the first training second at which the test accuracy reached {@link
 *     Settings#targetAccuracy}, or NaN if it did not within the budget
 */
record TimedCurve(AccuracyCurve accuracy, double epochs, double timeToTarget) {
  /**
   * How a run is clocked and judged.
   *
   * @param budgetSeconds training seconds per run; the clock counts the rounds' wall time only, so
   *     that the tests do not eat into the budget
   * @param testEverySeconds training seconds between tests; the round that ends the budget is
   *     always tested, so that every curve has a final point
   * @param targetAccuracy the test accuracy whose first time {@link #timeToTarget} reports
   */
  record Settings(double budgetSeconds, double testEverySeconds, double targetAccuracy) {
    Settings {
      if (!(budgetSeconds > 0) || !(testEverySeconds > 0)) {
        throw new IllegalArgumentException(
            "A timed run needs a positive budget and test interval but got budgetSeconds="
                + budgetSeconds
                + ", testEverySeconds="
                + testEverySeconds
                + "; pass seconds greater than 0.");
      }
    }
  }

  /** One training round as the clock sees it: its wall seconds and the examples it trained on. */
  record Round(double seconds, long examples) {}

  /** Whether the test accuracy reached the target within the budget. */
  boolean reachedTarget() {
    return !Double.isNaN(timeToTarget);
  }

  /** The time to target as a table cell: {@code format} of the seconds, or "not reached". */
  String timeToTargetCell(String format) {
    return reachedTarget() ? String.format(Locale.ROOT, format, timeToTarget) : "not reached";
  }

  /** Table cells of the test accuracy at each of {@code seconds}, separated by " | ". */
  String accuracyCells(double... seconds) {
    StringJoiner cells = new StringJoiner(" | ");
    for (double x : seconds) {
      cells.add(accuracy.at(x));
    }
    return cells.toString();
  }

  /**
   * The cells every time-to-accuracy table ends a row with: the best accuracy, the epochs and the
   * time to target ({@code targetFormat} of its seconds).
   */
  String summaryCells(String targetFormat) {
    return String.format(
        Locale.ROOT, "%.4f | %.1f | %s", accuracy.best(), epochs, timeToTargetCell(targetFormat));
  }

  /**
   * Trains a fresh trainer built from {@code config} on the run's training RDD until the budget is
   * spent, testing on the run's test RDD as {@code settings} say.
   */
  static TimedCurve train(BenchRun run, TrainerConfig.Builder config, Settings settings) {
    try (SparkNetTrainer t = run.trainer(config)) {
      t.setTrainingData(run.trainRdd());
      t.setValidationData(run.testRdd());
      Supplier<Round> rounds =
          () -> {
            RoundMetrics m = t.trainRound();
            return new Round(m.wallMillis() / 1000.0, m.examples());
          };
      return measure(
          settings, rounds, () -> (double) t.test().get("accuracy"), run.train().count());
    }
  }

  /**
   * The loop itself, apart from Spark so that its clocking can be tested: runs {@code rounds} until
   * their seconds add up to the budget, and calls {@code test} every {@link
   * Settings#testEverySeconds} of them and after the last.
   */
  static TimedCurve measure(
      Settings settings, Supplier<Round> rounds, DoubleSupplier test, long trainingSetSize) {
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    long seen = 0;
    double clock = 0;
    double lastTest = 0;
    while (clock < settings.budgetSeconds()) {
      Round r = rounds.get();
      clock += r.seconds();
      seen += r.examples();
      if (clock - lastTest >= settings.testEverySeconds() || clock >= settings.budgetSeconds()) {
        lastTest = clock;
        xs.add(clock);
        ys.add(test.getAsDouble());
      }
    }
    AccuracyCurve accuracy = new AccuracyCurve(xs, ys);
    return new TimedCurve(
        accuracy, (double) seen / trainingSetSize, accuracy.reaching(settings.targetAccuracy()));
  }
}
