package org.sparknet.api.averaging;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The loops behind {@link Averager}'s means and offsets, on arguments {@link Averager} has checked:
 * blocks of 2048 floats accumulated in float in the order given (with the overflow check that
 * redoes a block in double), and the fixed chunks of {@link Averager#MEAN_CHUNK} floats that run in
 * parallel on the common fork-join pool from {@link Averager#PARALLEL_THRESHOLD} floats. Apart from
 * {@link Averager} so that it holds the averaging rule and its checks, and this class how the rule
 * runs fast.
 */
final class MeanKernels {
  /** Floats per block of the inner loops and of the overflow check: fits in the L1 cache. */
  private static final int BLOCK = 2048;

  private MeanKernels() {}

  /** Adds {@code a_k} times input {@code k} over {@code y[lo..hi)}. */
  interface AddScaled {
    void add(int k, float ak, float[] y, int lo, int hi);
  }

  /** {@code base + Σ_k a_k·input_k}, block by block, in fixed parallel chunks. */
  static float[] offset(float[] base, float[] a, AddScaled inputs) {
    float[] y = new float[base.length];
    inParallel(
        y.length,
        (from, to) -> {
          for (int lo = from; lo < to; lo += BLOCK) {
            int hi = Math.min(to, lo + BLOCK);
            zero(y, lo, hi);
            for (int k = 0; k < a.length; k++) {
              inputs.add(k, a[k], y, lo, hi);
            }
            addBase(base, y, lo, hi);
          }
        });
    return y;
  }

  /** Runs {@link #meanRange} over (tensor, chunk) tasks, in parallel when they are large. */
  static void meanChunks(
      List<float[][]> inputs, List<float[]> outputs, float[] a, double[] weights) {
    List<int[]> tasks = new ArrayList<>();
    long total = 0;
    for (int t = 0; t < outputs.size(); t++) {
      int n = outputs.get(t).length;
      total += n;
      for (int from = 0; from < n; from += Averager.MEAN_CHUNK) {
        tasks.add(new int[] {t, from, Math.min(n, from + Averager.MEAN_CHUNK)});
      }
    }
    IntStream ids = IntStream.range(0, tasks.size());
    if (total >= Averager.PARALLEL_THRESHOLD) {
      ids = ids.parallel();
    }
    ids.forEach(
        id -> {
          int[] task = tasks.get(id);
          meanRange(inputs.get(task[0]), a, weights, outputs.get(task[0]), task[1], task[2]);
        });
  }

  /** A range {@code [from, to)} of one output array. */
  interface Range {
    void run(int from, int to);
  }

  /**
   * Runs {@code range} over {@code [0, n)} in fixed chunks, in parallel when {@code n} is large.
   */
  static void inParallel(int n, Range range) {
    int chunks = (n + Averager.MEAN_CHUNK - 1) / Averager.MEAN_CHUNK;
    IntStream ids = IntStream.range(0, chunks);
    if (n >= Averager.PARALLEL_THRESHOLD) {
      ids = ids.parallel();
    }
    ids.forEach(
        c -> range.run(c * Averager.MEAN_CHUNK, Math.min(n, (c + 1) * Averager.MEAN_CHUNK)));
  }

  /**
   * y[from..to) = x_0 + Σ_{k≥1} a_k (x_k − x_0) over {@code xs}; a block whose result is not finite
   * is redone in double as Σ w_k x_k / Σ w_k, so that only non-finite inputs give a non-finite
   * mean.
   */
  static void meanRange(float[][] xs, float[] a, double[] weights, float[] y, int from, int to) {
    float[] x0 = xs[0];
    if (xs.length == 1) {
      System.arraycopy(x0, from, y, from, to - from);
      return;
    }
    // (x_0 - x_k) * -a_k is a_k (x_k - x_0) exactly, and -0 when x_k equals x_0: -0 is the one
    // zero that adds to x_0 without changing it, a negative zero included.
    for (int lo = from; lo < to; lo += BLOCK) {
      int hi = Math.min(to, lo + BLOCK);
      float na1 = -a[1];
      float[] x1 = xs[1];
      for (int j = lo; j < hi; j++) {
        y[j] = (x0[j] - x1[j]) * na1;
      }
      for (int k = 2; k < xs.length; k++) {
        float nak = -a[k];
        float[] x = xs[k];
        for (int j = lo; j < hi; j++) {
          y[j] += (x0[j] - x[j]) * nak;
        }
      }
      if (!(addBase(x0, y, lo, hi) <= Float.MAX_VALUE)) {
        meanInDouble(xs, weights, y, lo, hi);
      }
    }
  }

  /** y[lo..hi) += base[lo..hi); returns the largest magnitude (NaN if one is NaN). */
  static float addBase(float[] base, float[] y, int lo, int hi) {
    float max = 0f;
    for (int j = lo; j < hi; j++) {
      float v = base[j] + y[j];
      y[j] = v;
      max = Math.max(max, Math.abs(v));
    }
    return max;
  }

  static void zero(float[] y, int lo, int hi) {
    for (int j = lo; j < hi; j++) {
      y[j] = 0f;
    }
  }

  static void meanInDouble(float[][] xs, double[] weights, float[] y, int lo, int hi) {
    double total = 0;
    for (double w : weights) {
      total += w;
    }
    for (int j = lo; j < hi; j++) {
      double s = 0;
      for (int k = 0; k < xs.length; k++) {
        s += weights[k] * xs[k][j];
      }
      y[j] = (float) (s / total);
    }
  }
}
