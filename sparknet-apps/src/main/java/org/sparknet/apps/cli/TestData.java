package org.sparknet.apps.cli;

import picocli.CommandLine.Option;

/**
 * {@code --test} and {@code --test-labels}: the data {@code test} runs on, and {@code train} tests
 * on when given. An argument group, so that {@code train} can leave it out while {@code test}
 * requires it ({@code --test-labels} needs {@code --test} in both).
 */
final class TestData {
  @Option(
      names = "--test",
      required = true,
      paramLabel = "URI",
      description =
          "Test data. Every test net of the solver (one per test_iter, with its test_state) tests"
              + " on it.")
  String uri;

  @Option(
      names = "--test-labels",
      paramLabel = "URI",
      description = "idx: labels of --test (default: its name with images->labels, idx3->idx1).")
  String labels;

  /** Opens {@code --test}; a test needs labels. */
  DataInput open(DataOptions options) {
    return DataInput.open(options, uri, "--test", labels, "--test-labels", true);
  }
}
