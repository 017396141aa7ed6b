package org.sparknet.apps.cli;

import picocli.CommandLine.Option;

/** The flags of {@code train} that win over the solver file's fields of the same meaning. */
final class SolverFlags {
  @Option(
      names = "--max-iter",
      paramLabel = "STEPS",
      description = "Stop after this many solver steps per worker (the solver's max_iter).")
  Long maxIter;

  @Option(
      names = "--test-interval",
      paramLabel = "STEPS",
      description =
          "Test after every this many steps per worker (the solver's test_interval; 0: only at"
              + " the end).")
  Long testInterval;

  @Option(
      names = "--display",
      paramLabel = "STEPS",
      description = "A progress line every this many steps (the solver's display; 0: every round).")
  Long display;

  @Option(
      names = "--snapshot",
      paramLabel = "STEPS",
      description = "Write a snapshot every this many steps (the solver's snapshot; 0: none).")
  Long snapshot;

  @Option(
      names = "--snapshot-prefix",
      paramLabel = "PREFIX",
      description =
          "Snapshots go to PREFIX_iter_N.caffemodel and .solverstate (the solver's"
              + " snapshot_prefix; a relative prefix is under --output).")
  String snapshotPrefix;

  @Option(names = "--lr", description = "Base learning rate (the solver's base_lr).")
  Double lr;

  SolverSettings.Flags flags() {
    if (lr != null && !(lr > 0 && Double.isFinite(lr))) {
      throw new IllegalArgumentException("--lr must be a positive number but was " + lr);
    }
    return new SolverSettings.Flags(maxIter, testInterval, display, snapshot, snapshotPrefix, lr);
  }
}
