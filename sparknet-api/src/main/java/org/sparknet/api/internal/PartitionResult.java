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
