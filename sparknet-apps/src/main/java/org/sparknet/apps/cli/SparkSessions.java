package org.sparknet.apps.cli;

import org.apache.spark.sql.SparkSession;

/** The Spark session the CLI commands use: quiet, Kryo, glog quiet on executors too. */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String master, String appName) {
    return SparkSession.builder()
        .master(master)
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
        .config("spark.kryo.registrator", "org.sparknet.api.internal.SparkNetKryoRegistrator")
        .config("spark.executorEnv.GLOG_minloglevel", "2")
        .config("spark.executorEnv.OPENBLAS_NUM_THREADS", "1")
        .getOrCreate();
  }
}
