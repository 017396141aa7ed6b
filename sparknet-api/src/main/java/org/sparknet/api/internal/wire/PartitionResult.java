package org.sparknet.api.internal.wire;

import java.io.Serializable;

/**
 * What one partition sends back after a round: its report and, unless it was idle or diverged, its
 * values with the weight they carry in the average. Plain averaging sends the worker's weights,
 * weighted by the examples it fed; elastic averaging sends {@code w_i - c}, weight 1. With
 * compression the worker sends {@code w_i - c} in 16 bits instead ({@code packed}), and the driver
 * adds their weighted mean to the centre.
 *
 * @param values the 32-bit values, or null (idle, diverged or compressed)
 * @param packed the 16-bit offsets from the round's centre, or null (not compressed)
 */
public record PartitionResult(WorkerReport report, float[] values, short[] packed, double weight)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A result of 32-bit values (null for an idle or diverged partition). */
  public PartitionResult(WorkerReport report, float[] values, double weight) {
    this(report, values, null, weight);
  }

  /** The result of a partition without data. */
  public static PartitionResult idle(int partition) {
    return new PartitionResult(WorkerReport.idle(partition), null, null, 0);
  }

  public int partition() {
    return report.partition();
  }

  /** Whether it carries values (32-bit or 16-bit). */
  public boolean hasValues() {
    return values != null || packed != null;
  }

  /** This result carrying {@code v} as its values, weight 1. */
  public PartitionResult withValues(float[] v) {
    return new PartitionResult(report, v, null, 1);
  }
}
