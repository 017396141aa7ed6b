package org.sparknet.apps.cli;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import org.sparknet.api.train.TimeBudget;
import picocli.CommandLine.Option;

/** {@code --time-budget} of the commands that train: the whole command ends inside it. */
final class TimeBudgetOption {
  /** A JVM older than this when the command starts was not started for it (tests, a shell). */
  static final Duration FRESH_JVM = Duration.ofSeconds(30);

  private final Instant created = Instant.now();

  @Option(
      names = "--time-budget",
      paramLabel = "DURATION",
      description =
          "End the whole command inside this wall-clock time (90s, 5m, 1h30m): the pace is"
              + " measured over the first rounds, the remaining steps are planned to end inside it"
              + " (the final test included), a poly learning rate reaches 0 at the last of them,"
              + " and the plan is made again after every round.")
  String text;

  /** The budget given, or {@code fallback} (null: none), counted from the command's start. */
  TimeBudget budget(Duration fallback) {
    Duration length = text != null ? TimeBudget.parseDuration(text, "--time-budget") : fallback;
    return length == null ? null : TimeBudget.since(start(), length);
  }

  boolean given() {
    return text != null;
  }

  /**
   * When the command started: the JVM's start when the JVM was started for it (starting Java and
   * Spark, and loading the data, are part of what a user waits for), else when the options were
   * parsed.
   */
  private Instant start() {
    Instant jvm = Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime());
    return Duration.between(jvm, created).compareTo(FRESH_JVM) < 0 ? jvm : created;
  }
}
