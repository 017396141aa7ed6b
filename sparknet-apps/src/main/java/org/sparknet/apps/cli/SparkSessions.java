package org.sparknet.apps.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.train.SparkSettings;
import org.sparknet.apps.cluster.KubernetesSettings;

/**
 * The Spark session the CLI commands use: SparkNet's recommended settings and no UI, each only
 * where the user set nothing (spark-submit's --conf arrives as a system property), and what the
 * cluster manager needs besides ({@link #clusterSettings}).
 */
final class SparkSessions {
  private SparkSessions() {}

  static SparkSession local(String master, String appName) {
    return create(master, appName, settings(master, 1, System::getProperty));
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
    String m =
        master == null && System.getProperty("spark.master") == null
            ? "local[" + localThreads + "]"
            : master;
    Map<String, String> all = new LinkedHashMap<>(conf);
    all.putAll(
        settings(master, taskCpus, k -> conf.containsKey(k) ? conf.get(k) : System.getProperty(k)));
    return create(m, appName, all);
  }

  /**
   * Everything the CLI sets on a session for {@code master} (null: spark-submit's) and tasks of
   * {@code taskCpus} cores, where {@code given} answers a key with the user's value or null.
   */
  static Map<String, String> settings(String master, int taskCpus, UnaryOperator<String> given) {
    Map<String, String> m = new LinkedHashMap<>();
    SparkSettings.recommended()
        .forEach(
            (k, v) -> {
              if (given.apply(k) == null) {
                m.put(k, v);
              }
            });
    if (given.apply("spark.ui.enabled") == null) {
      m.put("spark.ui.enabled", "false");
    }
    if (taskCpus > 1) {
      m.put("spark.task.cpus", Integer.toString(taskCpus));
    }
    m.putAll(clusterSettings(master, given));
    return m;
  }

  /**
   * What the cluster manager of {@code master} (null: spark-submit's {@code spark.master}) needs
   * besides the user's settings: on Kubernetes, {@link KubernetesSettings#missing}; elsewhere
   * nothing.
   */
  static Map<String, String> clusterSettings(String master, UnaryOperator<String> given) {
    String m = master != null ? master : given.apply("spark.master");
    return KubernetesSettings.isKubernetes(m) ? KubernetesSettings.missing(given) : Map.of();
  }

  private static SparkSession create(String master, String appName, Map<String, String> settings) {
    SparkSession.Builder b = SparkSession.builder().appName(appName);
    if (master != null) {
      b.master(master);
    }
    settings.forEach(b::config);
    YarnSettings.apply(b, master != null ? master : System.getProperty("spark.master"));
    SparkSession session = b.getOrCreate();
    TaskFailureLogs.reapply(); // Spark may have loaded its own log4j2 configuration
    return session;
  }
}
