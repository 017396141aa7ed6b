package org.sparknet.api;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.stream.IntStream;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.ndarray.NDArray;

/**
 * Every average of weights in SparkNet is computed here: the driver's combination of the workers'
 * weights after a round ({@link Sum}), a {@link SolverGroup}'s average after each step ({@link
 * #meanInPlace}), and {@link WeightCollection#mean} ({@link #mean}).
 *
 * <p>The rule is the same everywhere: the weighted sum {@code Σ w_i·x_i} is accumulated in double
 * in the order given, divided once by {@code Σ w_i} and rounded once to float. Averaging identical
 * inputs therefore returns them bit for bit ({@code n·x} is exact in a double for the counts that
 * occur, and dividing by {@code n} gives {@code x} back), and the result does not depend on how the
 * work is split. Two inputs of equal weight take a float shortcut, {@code (a + b) * 0.5f}, which is
 * the same correctly rounded mean (it differs only for subnormal means) and runs at memory speed;
 * in place over native memory ({@link #meanInPlace}) the sum is kept in float, which for more than
 * two inputs may differ from the double rule by a few ulps.
 */
public final class Averager {
  /** Floats per parallel task of {@link #mean} (4 MB of output). */
  static final int MEAN_CHUNK = 1 << 20;

  /** Below this many floats in all, {@link #mean} runs on the calling thread. */
  static final long PARALLEL_THRESHOLD = 1L << 21;

  /** Block of the double accumulator and of the overflow check: fits in the L1 cache. */
  private static final int BLOCK = 2048;

  private Averager() {}

  /**
   * A running weighted sum of flat float arrays, in double. Starts without an array, so that an
   * empty sum (the zero value of a {@code treeAggregate}) costs nothing to ship, and allocates it
   * on the first {@link #add}.
   */
  public static final class Sum implements Serializable {
    private static final long serialVersionUID = 1L;

    private double[] sum;
    private double weight;

    /** Adds {@code weight * values}; all arrays added must have the same length. */
    public Sum add(float[] values, double weight) {
      if (sum == null) {
        sum = new double[values.length];
      } else {
        checkLength(values.length);
      }
      double[] s = sum;
      for (int j = 0; j < s.length; j++) {
        s[j] += weight * values[j];
      }
      this.weight += weight;
      return this;
    }

    /** Adds another partial sum. */
    public Sum merge(Sum other) {
      if (other.sum == null) {
        return this;
      }
      if (sum == null) {
        sum = other.sum.clone();
      } else {
        checkLength(other.sum.length);
        for (int j = 0; j < sum.length; j++) {
          sum[j] += other.sum[j];
        }
      }
      weight += other.weight;
      return this;
    }

    private void checkLength(int n) {
      if (n != sum.length) {
        throw new IllegalArgumentException(
            "Cannot add " + n + " values to a sum of " + sum.length + " values");
      }
    }

    /** Whether anything was added. */
    public boolean isEmpty() {
      return sum == null;
    }

    /** The total weight added. */
    public double weight() {
      return weight;
    }

    /** {@code sum / weight} as floats: the weighted mean. */
    public float[] mean() {
      checkNotEmpty();
      float[] out = new float[sum.length];
      for (int j = 0; j < out.length; j++) {
        out[j] = (float) (sum[j] / weight);
      }
      return out;
    }

    /** {@code base + scale * sum} as floats (elastic averaging moves the centre this way). */
    public float[] offset(float[] base, double scale) {
      checkNotEmpty();
      checkLength(base.length);
      float[] out = new float[base.length];
      for (int j = 0; j < out.length; j++) {
        out[j] = (float) (base[j] + scale * sum[j]);
      }
      return out;
    }

    private void checkNotEmpty() {
      if (sum == null) {
        throw new IllegalStateException("Nothing was added to this sum");
      }
    }
  }

  /**
   * The element-wise mean of {@code collections} (equal weights), a new collection; all must have
   * the same structure. Large collections are split into chunks that run in parallel on the common
   * fork-join pool; the result does not depend on the split.
   *
   * @throws IllegalArgumentException when the list is empty or the structures differ
   */
  public static WeightCollection mean(Collection<WeightCollection> collections) {
    if (collections.isEmpty()) {
      throw new IllegalArgumentException("Cannot average an empty list of weight collections");
    }
    List<WeightCollection> all = List.copyOf(collections);
    WeightCollection first = all.get(0);
    for (int k = 1; k < all.size(); k++) {
      String diff = first.structureDifference(all.get(k));
      if (diff != null) {
        throw new IllegalArgumentException(
            "Cannot average weight collection " + k + " with collection 0: " + diff);
      }
    }
    List<float[][]> inputs = new ArrayList<>();
    List<float[]> outputs = new ArrayList<>();
    LinkedHashMap<String, List<Tensor>> result = new LinkedHashMap<>();
    for (String layer : first.layerNames()) {
      List<Tensor> ts = first.get(layer);
      List<Tensor> out = new ArrayList<>(ts.size());
      for (int i = 0; i < ts.size(); i++) {
        float[][] xs = new float[all.size()][];
        for (int k = 0; k < xs.length; k++) {
          xs[k] = all.get(k).get(layer).get(i).data();
        }
        float[] y = new float[xs[0].length];
        inputs.add(xs);
        outputs.add(y);
        out.add(new Tensor(ts.get(i).shape(), y));
      }
      result.put(layer, out);
    }
    meanChunks(inputs, outputs);
    WeightCollection w = new WeightCollection();
    result.forEach(w::put);
    return w;
  }

  /** Runs {@link #meanRange} over (tensor, chunk) tasks, in parallel when they are large. */
  private static void meanChunks(List<float[][]> inputs, List<float[]> outputs) {
    List<int[]> tasks = new ArrayList<>();
    long total = 0;
    for (int t = 0; t < outputs.size(); t++) {
      int n = outputs.get(t).length;
      total += n;
      for (int from = 0; from < n; from += MEAN_CHUNK) {
        tasks.add(new int[] {t, from, Math.min(n, from + MEAN_CHUNK)});
      }
    }
    IntStream ids = IntStream.range(0, tasks.size());
    if (total >= PARALLEL_THRESHOLD) {
      ids = ids.parallel();
    }
    ids.forEach(
        id -> {
          int[] task = tasks.get(id);
          meanRange(inputs.get(task[0]), outputs.get(task[0]), task[1], task[2]);
        });
  }

  /** y[from..to) = mean over k of xs[k][from..to). */
  private static void meanRange(float[][] xs, float[] y, int from, int to) {
    int n = xs.length;
    if (n == 1) {
      System.arraycopy(xs[0], from, y, from, to - from);
    } else if (n == 2) {
      meanOfTwo(xs[0], xs[1], y, from, to);
    } else {
      double[] acc = new double[BLOCK];
      double divisor = n;
      for (int lo = from; lo < to; lo += BLOCK) {
        int len = Math.min(BLOCK, to - lo);
        float[] x0 = xs[0];
        for (int j = 0; j < len; j++) {
          acc[j] = x0[lo + j];
        }
        for (int k = 1; k < n; k++) {
          float[] x = xs[k];
          for (int j = 0; j < len; j++) {
            acc[j] += x[lo + j];
          }
        }
        for (int j = 0; j < len; j++) {
          y[lo + j] = (float) (acc[j] / divisor);
        }
      }
    }
  }

  /**
   * {@code (a + b) * 0.5f} in float, which vectorises (a double loop does not on JDK 17). It is the
   * correctly rounded mean except where {@code a + b} overflows, so a block with an infinity or NaN
   * is redone in double.
   */
  private static void meanOfTwo(float[] a, float[] b, float[] y, int from, int to) {
    for (int lo = from; lo < to; lo += BLOCK) {
      int hi = Math.min(to, lo + BLOCK);
      float max = 0f;
      for (int j = lo; j < hi; j++) {
        float v = (a[j] + b[j]) * 0.5f;
        y[j] = v;
        max = Math.max(max, Math.abs(v));
      }
      if (!(max <= Float.MAX_VALUE)) {
        for (int j = lo; j < hi; j++) {
          y[j] = (float) (((double) a[j] + (double) b[j]) * 0.5);
        }
      }
    }
  }

  /**
   * Sets each array of every member to the members' mean, in place in native memory (no heap
   * copies): member 0's arrays accumulate the sum in float (OpenBLAS), are scaled once by {@code
   * 1/k}, and are copied to the other members. {@code members.get(i)} are member {@code i}'s
   * arrays, all members in the same order and shapes.
   */
  public static void meanInPlace(List<List<NDArray>> members) {
    if (members.isEmpty()) {
      throw new IllegalArgumentException("Cannot average an empty list of members");
    }
    List<NDArray> first = members.get(0);
    for (List<NDArray> m : members) {
      if (m.size() != first.size()) {
        throw new IllegalArgumentException(
            "Members hold " + m.size() + " and " + first.size() + " arrays; they must match");
      }
    }
    float inverse = 1f / members.size();
    for (int a = 0; a < first.size(); a++) {
      NDArray acc = first.get(a);
      for (int i = 1; i < members.size(); i++) {
        acc.add(members.get(i).get(a));
      }
      if (members.size() > 1) {
        acc.scale(inverse);
      }
      for (int i = 1; i < members.size(); i++) {
        members.get(i).get(a).copyFrom(acc);
      }
    }
  }
}
