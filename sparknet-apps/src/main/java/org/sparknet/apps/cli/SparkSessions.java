package org.sparknet.apps.cli;

import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.train.SparkSettings;

/**
 * The Spark session the CLI commands use: SparkNet's recommended settings and no UI, each only
 * where the user set nothing (spark-submit's --conf arrives as a system property).
 */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String master, String appName) {
    SparkSession.Builder b = builder(appName).master(master);
    YarnSettings.apply(b, master);
    return b.getOrCreate();
  }

  /**
   * The session for a command: {@code master} when given; else the master spark-submit set
   * (spark.master); else {@code local[localThreads]}.
   */
  static SparkSession forCommand(String master, int localThreads, String appName) {
    return forCommand(master, localThreads, appName, 1);
  }

  /**
   * Like {@link #forCommand(String, int, String)} for tasks of {@code taskCpus} cores each (the
   * solver groups of hybrid training): {@code spark.task.cpus} is set when the session is created
   * here; under spark-submit pass {@code --conf spark.task.cpus=N} yourself.
   */
  static SparkSession forCommand(String master, int localThreads, String appName, int taskCpus) {
    return forCommand(master, localThreads, appName, taskCpus, Map.of());
  }

  /** Like {@link #forCommand(String, int, String, int)} with {@code conf} set on the session. */
  static SparkSession forCommand(
      String master, int localThreads, String appName, int taskCpus, Map<String, String> conf) {
    SparkSession.Builder b = builder(appName);
    conf.forEach(b::config);
    if (taskCpus > 1) {
      b.config("spark.task.cpus", Integer.toString(taskCpus));
    }
    if (master != null) {
      b.master(master);
    } else if (System.getProperty("spark.master") == null) {
      b.master("local[" + localThreads + "]");
    }
    YarnSettings.apply(b, master != null ? master : System.getProperty("spark.master"));
    return b.getOrCreate();
  }

  private static SparkSession.Builder builder(String appName) {
    SparkSession.Builder b = SparkSettings.apply(SparkSession.builder().appName(appName));
    return System.getProperty("spark.ui.enabled") == null
        ? b.config("spark.ui.enabled", "false")
        : b;
  }
}
