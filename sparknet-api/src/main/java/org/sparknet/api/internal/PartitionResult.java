package org.sparknet.api.internal;

import java.io.Serializable;

/**
 * What one partition sends back after a round: its report and, unless it was idle or diverged, its
 * values with the weight they carry in the sum (plain averaging: the worker's weights, weighted by
 * the examples it fed; elastic averaging: {@code w_i - c}, weight 1).
 *
 * @param values null for an idle or diverged partition
 */
public record PartitionResult(WorkerReport report, float[] values, double weight)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The result of a partition without data. */
  public static PartitionResult idle(int partition) {
    return new PartitionResult(WorkerReport.idle(partition), null, 0);
  }

  public int partition() {
    return report.partition();
  }
}
