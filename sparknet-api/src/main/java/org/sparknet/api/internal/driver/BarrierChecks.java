package org.sparknet.api.internal.driver;

import java.util.Locale;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

/**
 * What an all-reduce run needs of the cluster before its first round: Spark runs a barrier stage
 * only when every one of its tasks can start at once, and never with dynamic allocation. Spark
 * itself would fail the first round's job (or wait for slots that never come); this says why before
 * any training, naming the setting.
 */
final class BarrierChecks {
  private BarrierChecks() {}

  /**
   * @throws IllegalArgumentException when dynamic allocation is on, or the task slots are fewer
   *     than {@code partitions}
   */
  static void check(JavaSparkContext sc, int partitions) {
    SparkConf conf = sc.getConf();
    if (RoundDriver.dynamicAllocation(sc)) {
      throw new IllegalArgumentException(
          "--averaging allreduce (Averaging.ALL_REDUCE) runs each round as a Spark barrier stage,"
              + " which Spark refuses with dynamic allocation (spark.dynamicAllocation.enabled="
              + "true); set spark.dynamicAllocation.enabled=false with a fixed number of executors,"
              + " or use --averaging plain");
    }
    int taskCpus = conf.getInt("spark.task.cpus", 1);
    int slots = sc.defaultParallelism() / Math.max(1, taskCpus);
    if (slots < partitions) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--averaging allreduce (Averaging.ALL_REDUCE) runs the %d workers' tasks of a round"
                  + " all at once (a Spark barrier stage), but the cluster has %d task slots (%d"
                  + " cores for tasks of spark.task.cpus=%d); train with at most %d workers"
                  + " (--workers), or add executors or cores",
              partitions,
              slots,
              sc.defaultParallelism(),
              taskCpus,
              slots));
    }
  }
}
