package org.sparknet.apps.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;

/**
 * The default worker count of every command: the task slots, that is the cores Spark may run tasks
 * on divided by the cores a task takes. Locally that is the machine's cores (or N of {@code
 * local[N]}); on a cluster it is known once the session runs (Spark's default parallelism).
 */
final class TaskSlots {
  private static final Pattern LOCAL = Pattern.compile("local(?:\\[(\\*|\\d+)(?:,\\d+)?])?");

  private TaskSlots() {}

  /**
   * The slots of {@code master} (or spark-submit's {@code spark.master} when null) for tasks of
   * {@code taskCpus} cores, or 0 when the master is a cluster's: then ask {@link #ofSession}.
   */
  static int local(String master, int taskCpus) {
    String m = master != null ? master : System.getProperty("spark.master");
    if (m == null) {
      return perTask(Runtime.getRuntime().availableProcessors(), taskCpus);
    }
    Matcher lm = LOCAL.matcher(m.strip());
    if (!lm.matches()) {
      return 0;
    }
    String n = lm.group(1);
    int cores =
        n == null
            ? 1
            : n.equals("*") ? Runtime.getRuntime().availableProcessors() : Integer.parseInt(n);
    return perTask(cores, taskCpus);
  }

  /**
   * {@code workers} when given, else the task slots of {@code master}; for a cluster this starts
   * the command's session (through {@link SparkSessions#forCommand}, so that the command's own
   * later getOrCreate finds it) and asks it.
   */
  static int resolve(Integer workers, String master, int taskCpus, String appName) {
    if (workers != null) {
      return workers;
    }
    int local = local(master, taskCpus);
    return local > 0
        ? local
        : ofSession(SparkSessions.forCommand(master, 1, appName, taskCpus), taskCpus);
  }

  /** The slots of a running session for tasks of {@code taskCpus} cores. */
  static int ofSession(SparkSession spark, int taskCpus) {
    return perTask(spark.sparkContext().defaultParallelism(), taskCpus);
  }

  private static int perTask(int cores, int taskCpus) {
    return Math.max(1, cores / Math.max(1, taskCpus));
  }
}
