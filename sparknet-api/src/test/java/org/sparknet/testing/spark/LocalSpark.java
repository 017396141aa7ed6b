package org.sparknet.testing.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.api.java.JavaRDD;
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

  /** Partitions of test data, looked up on the executors (which share this JVM in local mode). */
  private static final Map<String, List<? extends List<?>>> PARTS = new ConcurrentHashMap<>();

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

  /**
   * An RDD with exactly these partitions, built on the executors from a registry in this JVM
   * (NOTES: never parallelize a big local list; its data would ride in every task of every round).
   */
  @SuppressWarnings("unchecked")
  public static <T> JavaRDD<T> partitioned(List<List<T>> parts) {
    String key = UUID.randomUUID().toString();
    PARTS.put(key, parts);
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      ids.add(i);
    }
    return context()
        .parallelize(ids, parts.size())
        .flatMap(i -> ((List<T>) PARTS.get(key).get(i)).iterator());
  }
}
