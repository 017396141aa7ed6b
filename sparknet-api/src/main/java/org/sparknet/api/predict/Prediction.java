package org.sparknet.api.predict;

/**
 * The output of one example: the item it came from and the values of the output blob for it (the
 * blob's row for the example: its size without the batch axis).
 */
public record Prediction<T>(T item, float[] values) {

  /** The index of the highest value (the predicted class when the values are class scores). */
  public int argmax() {
    int best = 0;
    for (int j = 1; j < values.length; j++) {
      if (values[j] > values[best]) {
        best = j;
      }
    }
    return best;
  }

  /**
   * Softmax of the values in double, shifted by their maximum so that large scores do not overflow.
   */
  public double[] softmax() {
    double[] p = new double[values.length];
    for (int j = 0; j < p.length; j++) {
      p[j] = values[j];
    }
    softmaxInPlace(p);
    return p;
  }

  /** Replaces scores {@code v} by their softmax, shifted by their maximum. */
  public static void softmaxInPlace(double[] v) {
    double max = Double.NEGATIVE_INFINITY;
    for (double s : v) {
      max = Math.max(max, s);
    }
    double sum = 0;
    for (int j = 0; j < v.length; j++) {
      v[j] = Math.exp(v[j] - max);
      sum += v[j];
    }
    for (int j = 0; j < v.length; j++) {
      v[j] /= sum;
    }
  }
}
