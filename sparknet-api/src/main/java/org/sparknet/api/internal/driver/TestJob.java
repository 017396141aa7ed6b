package org.sparknet.api.internal.driver;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.internal.worker.WorkerPlan;
import org.sparknet.api.internal.worker.WorkerTasks;
import org.sparknet.api.predict.OutputSums;

/**
 * Tests weights on a whole packed data set, distributed over its partitions: the weights are
 * broadcast once, every partition runs its test net over its shard ({@link WorkerTasks#test}), and
 * the driver adds up the sums.
 */
public final class TestJob {
  private TestJob() {}

  public static OutputSums run(
      JavaSparkContext sc, WorkerPlan plan, float[] weights, PackedData data) {
    Broadcast<float[]> bc = sc.broadcast(weights);
    WorkerPlan p = plan;
    try {
      List<OutputSums> parts =
          data.shards()
              .mapPartitionsWithIndex((i, it) -> WorkerTasks.test(p, bc, i, it), true)
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
