package org.sparknet.api.internal;

import java.io.Serializable;

/**
 * What one partition sends back after a round: its values (weights for plain averaging, {@code w_i
 * - c} for elastic averaging) with the weight they carry in the sum, its example count and loss,
 * and its timings. An empty partition sends no values and counts nothing.
 */
public final class PartitionResult implements Serializable {
  private static final long serialVersionUID = 1L;

  final int partition;
  final long examples;
  final long steps;
  final double lossSum;
  final float[] values;
  final double weight;
  final String divergence;
  final long setupMillis;
  final long computeMillis;
  final long extractMillis;
  final boolean solverRestarted;

  PartitionResult(
      int partition,
      long examples,
      long steps,
      double lossSum,
      float[] values,
      double weight,
      String divergence,
      long setupMillis,
      long computeMillis,
      long extractMillis) {
    this(
        partition,
        examples,
        steps,
        lossSum,
        values,
        weight,
        divergence,
        setupMillis,
        computeMillis,
        extractMillis,
        false);
  }

  /**
   * @param solverRestarted the partition's solver did not continue from the previous round (it ran
   *     on a new or stale net: momentum and iteration started over)
   */
  PartitionResult(
      int partition,
      long examples,
      long steps,
      double lossSum,
      float[] values,
      double weight,
      String divergence,
      long setupMillis,
      long computeMillis,
      long extractMillis,
      boolean solverRestarted) {
    this.solverRestarted = solverRestarted;
    this.partition = partition;
    this.examples = examples;
    this.steps = steps;
    this.lossSum = lossSum;
    this.values = values;
    this.weight = weight;
    this.divergence = divergence;
    this.setupMillis = setupMillis;
    this.computeMillis = computeMillis;
    this.extractMillis = extractMillis;
  }

  static PartitionResult empty(int partition) {
    return new PartitionResult(partition, 0, 0, 0, null, 0, null, 0, 0, 0);
  }

  public int partition() {
    return partition;
  }

  public long examples() {
    return examples;
  }
}
