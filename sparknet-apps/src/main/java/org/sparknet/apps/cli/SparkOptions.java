package org.sparknet.apps.cli;

import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/** {@code --workers} (default 2) and {@code --master} of the commands that share them. */
final class SparkOptions {
  @Option(
      names = "--workers",
      defaultValue = "2",
      description = "Partitions; default ${DEFAULT-VALUE}.")
  int workers;

  @Option(
      names = "--master",
      description = "Spark master URL (default: spark-submit's, else local[WORKERS]).")
  String master;

  /** Checks the values before Spark starts (exit 2 on bad ones). */
  void check() {
    if (workers < 1) {
      throw new IllegalArgumentException("--workers must be >= 1 but was " + workers);
    }
  }

  SparkSession session(String appName) {
    return SparkSessions.forCommand(master, workers, appName);
  }
}
