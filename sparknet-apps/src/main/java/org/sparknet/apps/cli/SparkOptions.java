package org.sparknet.apps.cli;

import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/**
 * {@code --workers} (default: the task slots, {@link TaskSlots}) and {@code --master} of the
 * commands that share them.
 */
final class SparkOptions {
  @Option(
      names = "--workers",
      description = "Partitions; default: the task slots (local: the cores).")
  Integer workers;

  @Option(
      names = "--master",
      description = "Spark master URL (default: spark-submit's, else local[WORKERS]).")
  String master;

  /** Checks the values before Spark starts (exit 2 on bad ones). */
  void check() {
    if (workers != null && workers < 1) {
      throw new IllegalArgumentException("--workers must be >= 1 but was " + workers);
    }
  }

  /** The worker count: --workers, else the task slots (starting the session for a cluster's). */
  int workers(String appName) {
    return TaskSlots.resolve(workers, master, 1, appName);
  }

  SparkSession session(String appName) {
    return SparkSessions.forCommand(master, workers(appName), appName);
  }
}
