package org.sparknet.api.internal;

import java.io.Serializable;

/**
 * The running sum of a round's partition results: {@code sum_i weight_i * values_i} in double
 * precision, example and loss totals, the slowest worker's timings and the first divergence (by
 * partition). Summing in double makes the weighted mean exact for identical inputs: {@code n * w}
 * and sums of a few of them are exact in double, and dividing once rounds back to {@code w}.
 *
 * <p>Starts without an array (so that the zero value of {@code treeAggregate} costs nothing to
 * ship) and allocates it on the first result with values.
 */
public final class WeightSum implements Serializable {
  private static final long serialVersionUID = 1L;

  double[] sum;
  long examples;
  double lossSum;
  double weight;
  int contributors;
  long maxSteps;
  long maxSetupMillis;
  long maxComputeMillis;
  long maxExtractMillis;
  int divergedPartition = -1;
  String divergence;
  long[] examplesByPartition = new long[0];
  int[] restartsByPartition = new int[0];

  public WeightSum() {}

  /** Adds one partition's result; returns this. */
  public WeightSum add(PartitionResult r) {
    maxSetupMillis = Math.max(maxSetupMillis, r.setupMillis);
    maxComputeMillis = Math.max(maxComputeMillis, r.computeMillis);
    maxExtractMillis = Math.max(maxExtractMillis, r.extractMillis);
    if (r.solverRestarted) {
      if (r.partition >= restartsByPartition.length) {
        restartsByPartition = java.util.Arrays.copyOf(restartsByPartition, r.partition + 1);
      }
      restartsByPartition[r.partition]++;
    }
    if (r.divergence != null) {
      noteDivergence(r.partition, r.divergence);
      return this;
    }
    if (r.examples == 0 || r.values == null) {
      return this;
    }
    if (sum == null) {
      sum = new double[r.values.length];
    } else if (sum.length != r.values.length) {
      throw new IllegalStateException(
          "Partition "
              + r.partition
              + " returned "
              + r.values.length
              + " weights, expected "
              + sum.length);
    }
    double a = r.weight;
    float[] v = r.values;
    double[] s = sum;
    for (int j = 0; j < s.length; j++) {
      s[j] += a * v[j];
    }
    examples += r.examples;
    if (r.partition >= examplesByPartition.length) {
      examplesByPartition = java.util.Arrays.copyOf(examplesByPartition, r.partition + 1);
    }
    examplesByPartition[r.partition] += r.examples;
    lossSum += r.lossSum;
    weight += r.weight;
    contributors++;
    maxSteps = Math.max(maxSteps, r.steps);
    return this;
  }

  /** Adds another partial sum; returns this. */
  public WeightSum merge(WeightSum o) {
    maxSetupMillis = Math.max(maxSetupMillis, o.maxSetupMillis);
    maxComputeMillis = Math.max(maxComputeMillis, o.maxComputeMillis);
    maxExtractMillis = Math.max(maxExtractMillis, o.maxExtractMillis);
    if (o.restartsByPartition.length > restartsByPartition.length) {
      restartsByPartition =
          java.util.Arrays.copyOf(restartsByPartition, o.restartsByPartition.length);
    }
    for (int p = 0; p < o.restartsByPartition.length; p++) {
      restartsByPartition[p] += o.restartsByPartition[p];
    }
    if (o.divergence != null) {
      noteDivergence(o.divergedPartition, o.divergence);
    }
    if (o.sum != null) {
      if (sum == null) {
        sum = o.sum.clone();
      } else {
        for (int j = 0; j < sum.length; j++) {
          sum[j] += o.sum[j];
        }
      }
    }
    examples += o.examples;
    if (o.examplesByPartition.length > examplesByPartition.length) {
      examplesByPartition =
          java.util.Arrays.copyOf(examplesByPartition, o.examplesByPartition.length);
    }
    for (int p = 0; p < o.examplesByPartition.length; p++) {
      examplesByPartition[p] += o.examplesByPartition[p];
    }
    lossSum += o.lossSum;
    weight += o.weight;
    contributors += o.contributors;
    maxSteps = Math.max(maxSteps, o.maxSteps);
    return this;
  }

  private void noteDivergence(int partition, String what) {
    if (divergence == null || partition < divergedPartition) {
      divergedPartition = partition;
      divergence = what;
    }
  }

  /** {@code sum / weight} as floats: the weighted mean. */
  public float[] mean() {
    float[] out = new float[sum.length];
    for (int j = 0; j < out.length; j++) {
      out[j] = (float) (sum[j] / weight);
    }
    return out;
  }

  /** {@code base + scale * sum} as floats. */
  public float[] offset(float[] base, double scale) {
    float[] out = new float[base.length];
    for (int j = 0; j < out.length; j++) {
      out[j] = (float) (base[j] + scale * sum[j]);
    }
    return out;
  }

  /** Examples fed by partition {@code p} (0 when it sent nothing). */
  public long examplesOf(int p) {
    return p < examplesByPartition.length ? examplesByPartition[p] : 0;
  }

  /** Partitions whose solver started over in this round (see {@link PartitionResult}). */
  public java.util.List<Integer> restartedPartitions() {
    java.util.List<Integer> out = new java.util.ArrayList<>();
    for (int p = 0; p < restartsByPartition.length; p++) {
      if (restartsByPartition[p] > 0) {
        out.add(p);
      }
    }
    return out;
  }

  public boolean hasValues() {
    return sum != null;
  }

  public long examples() {
    return examples;
  }

  public double lossSum() {
    return lossSum;
  }

  public int contributors() {
    return contributors;
  }

  public long maxSteps() {
    return maxSteps;
  }

  public long maxSetupMillis() {
    return maxSetupMillis;
  }

  public long maxComputeMillis() {
    return maxComputeMillis;
  }

  public long maxExtractMillis() {
    return maxExtractMillis;
  }

  public int divergedPartition() {
    return divergedPartition;
  }

  public String divergence() {
    return divergence;
  }
}
