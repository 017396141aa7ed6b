package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The CLI sets its defaults only where the user set nothing: spark-submit's {@code --conf
 * spark.ui.enabled=true} reaches the driver as a system property and wins over the CLI's "no UI" (a
 * build that always set it gave "false").
 */
class SparkSessionsIT {
  @Test
  void aUsersUiSettingWins() {
    System.setProperty("spark.ui.enabled", "true");
    SparkSession spark = null;
    try {
      spark = SparkSessions.forCommand("local[1]", 1, "ui test");
      assertEquals("true", spark.conf().get("spark.ui.enabled"));
    } finally {
      System.clearProperty("spark.ui.enabled");
      if (spark != null) {
        spark.stop();
      }
    }
    SparkSession quiet = SparkSessions.forCommand("local[1]", 1, "ui test");
    try {
      assertEquals("false", quiet.conf().get("spark.ui.enabled"));
    } finally {
      quiet.stop();
    }
  }
}
