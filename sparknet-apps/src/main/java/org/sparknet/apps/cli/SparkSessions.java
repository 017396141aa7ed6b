package org.sparknet.apps.cli;

import org.apache.spark.sql.SparkSession;

/** The Spark session the CLI commands use: quiet, Kryo, glog quiet on executors too. */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String master, String appName) {
    return builder(appName).master(master).getOrCreate();
  }

  /**
   * The session for a command: {@code master} when given; else the master spark-submit set
   * (spark.master); else {@code local[localThreads]}.
   */
  static SparkSession forCommand(String master, int localThreads, String appName) {
    SparkSession.Builder b = builder(appName);
    if (master != null) {
      b.master(master);
    } else if (System.getProperty("spark.master") == null) {
      b.master("local[" + localThreads + "]");
    }
    return b.getOrCreate();
  }

  private static SparkSession.Builder builder(String appName) {
    return SparkSession.builder()
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.sparknet.api.internal.SparkNetKryoRegistrator")
        .config("spark.executorEnv.GLOG_minloglevel", "2")
        .config("spark.executorEnv.OPENBLAS_NUM_THREADS", "1");
  }
}
