package org.sparknet.api.internal.driver;

import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.SolverState;
import org.sparknet.api.internal.wire.PartitionSolverState;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerLineages;
import org.sparknet.api.internal.worker.WorkerRegistry;
import org.sparknet.api.internal.worker.WorkerTasks;

/**
 * The driver's jobs that visit every worker outside a round: read back their weights or solver
 * states, and release their nets when the trainer closes.
 */
public final class WorkerJobs {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerJobs.class);

  private WorkerJobs() {}

  /**
   * Each partition's worker weights after the round of {@code taken}, by partition (null where no
   * executor holds the worker whose result the driver took).
   */
  public static float[][] weights(
      PackedData data, String trainerId, WeightLayout layout, WorkerLineages taken) {
    List<float[]> flats;
    try {
      flats =
          data.shards()
              .mapPartitionsWithIndex(
                  (p, it) -> WorkerTasks.weights(trainerId, layout, p, taken), true)
              .collect();
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    }
    float[][] out = new float[flats.size()][];
    for (int p = 0; p < out.length; p++) {
      float[] f = flats.get(p);
      out[p] = f.length == 0 && layout.size() != 0 ? null : f;
    }
    return out;
  }

  /**
   * Each partition's solver state after the round of {@code taken}, by partition (null where no
   * executor holds the worker whose result the driver took: its solver restarts after a resume).
   */
  public static SolverState[] solverStates(
      JavaSparkContext sc, PackedData data, String trainerId, WorkerLineages taken) {
    String description = "SparkNet solver states after round " + taken.round();
    sc.setJobDescription(description);
    try {
      List<PartitionSolverState> results =
          data.shards()
              .mapPartitionsWithIndex((p, it) -> WorkerTasks.solverState(trainerId, p, taken), true)
              .collect();
      SolverState[] out = new SolverState[data.partitions()];
      for (PartitionSolverState r : results) {
        out[r.partition()] = r.state();
      }
      return out;
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      sc.setJobDescription(null);
    }
  }

  /**
   * Frees the trainer's workers on the executors of a cluster: one job of enough tasks to reach
   * every executor. Best effort: an executor lost meanwhile frees nothing, and a failure is logged,
   * not thrown (the caller is closing).
   */
  public static void release(JavaSparkContext sc, String trainerId, int workers) {
    if (sc.sc().isStopped() || sc.isLocal()) {
      return;
    }
    int n = Math.max(workers, sc.defaultParallelism()) * 2;
    sc.setJobDescription("SparkNet release nets");
    try {
      sc.parallelize(IntStream.range(0, n).boxed().toList(), n)
          .foreachPartition(it -> WorkerRegistry.release(trainerId));
    } catch (RuntimeException e) {
      LOG.warn("Could not release the executor nets of trainer {}: {}", trainerId, e.toString());
    } finally {
      sc.setJobDescription(null);
    }
  }
}
