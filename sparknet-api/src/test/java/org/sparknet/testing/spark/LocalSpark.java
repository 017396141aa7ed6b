package org.sparknet.testing.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.train.SparkSettings;

/**
 * The one local Spark session of a test JVM: {@code local[2]}, no UI, SparkNet's recommended
 * settings ({@link SparkSettings}), Kryo with every class registered ({@code
 * spark.kryo.registrationRequired=true} and SparkNet's registrator), so a test fails when something
 * unregistered crosses the wire. Created on first use and left running for the JVM's other tests
 * (starting Spark costs seconds); never stop it in a test.
 */
public final class LocalSpark {
  private static SparkSession session;

  private LocalSpark() {}

  public static synchronized SparkSession session() {
    if (session == null || session.sparkContext().isStopped()) {
      session =
          SparkSettings.apply(SparkSession.builder().master("local[2]").appName("sparknet-tests"))
              .config("spark.ui.enabled", "false")
              .config("spark.driver.host", "127.0.0.1")
              .config("spark.kryo.registrationRequired", "true")
              .config("spark.sql.shuffle.partitions", "2")
              .config("spark.default.parallelism", "2")
              .getOrCreate();
    }
    return session;
  }

  public static JavaSparkContext context() {
    return JavaSparkContext.fromSparkContext(session().sparkContext());
  }
}
