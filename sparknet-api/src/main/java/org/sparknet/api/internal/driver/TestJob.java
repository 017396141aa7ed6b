package org.sparknet.api.internal.driver;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.internal.worker.WorkerPlan;
import org.sparknet.api.internal.worker.WorkerTasks;
import org.sparknet.api.predict.OutputSums;

/**
 * Tests weights on a whole packed data set, distributed over its partitions: the weights are
 * broadcast once, every partition runs one of the net's test nets over its shard ({@link
 * WorkerTasks#test}), and the driver adds up the sums.
 */
public final class TestJob {
  private TestJob() {}

  /** Tests on test net #0. */
  public static OutputSums run(
      JavaSparkContext sc, WorkerPlan plan, float[] weights, PackedData data) {
    return run(sc, plan, weights, data, 0);
  }

  /** Tests on test net {@code testNet} ({@link org.sparknet.api.Net#testNetCount()}). */
  public static OutputSums run(
      JavaSparkContext sc, WorkerPlan plan, float[] weights, PackedData data, int testNet) {
    Broadcast<float[]> bc = sc.broadcast(weights);
    WorkerPlan p = plan;
    int k = testNet;
    try {
      List<OutputSums> parts =
          data.shards()
              .mapPartitionsWithIndex((i, it) -> WorkerTasks.test(p, bc, k, i, it), true)
              .collect();
      OutputSums total = new OutputSums();
      parts.forEach(total::merge);
      return total;
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      bc.destroy();
    }
  }
}
