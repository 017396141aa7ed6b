package org.sparknet.api.averaging;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.sparknet.ndarray.NDArray;

/**
 * Every average of weights in SparkNet is computed here: the driver's combination of the workers'
 * results after a round ({@link #weightedMean}, {@link #offset}; {@link Sum} when {@code
 * treeAggregate} sums on the executors), a {@link org.sparknet.api.SolverGroup}'s average after
 * each step ({@link #meanInPlace}), and {@link org.sparknet.api.WeightCollection#mean} ({@link
 * #equalMeans}).
 *
 * <p>The rule is the same everywhere: the mean of {@code x_0..x_{n-1}} with weights {@code w_i} is
 * {@code x_0 + Σ_{i≥1} a_i·(x_i − x_0)}, {@code a_i = w_i / Σ w} rounded to float, each element
 * accumulated in float in the order given. Averaging identical inputs therefore returns them bit
 * for bit (every difference is 0); the error is at most about {@code 2^-24 (|mean| + (n+2) max_i
 * |x_i - x_0|)}, within an ulp of the exact mean when the inputs are close, as the weights of
 * averaged workers are (inputs far apart lose what any float sum loses); each element is computed
 * on its own, so the result does not depend on how the work is split into parallel chunks. A block
 * where a difference overflows (inputs of opposite sign near {@code Float.MAX_VALUE}) is recomputed
 * in double. The loops run in float because C2 vectorises them (it does not vectorise
 * float-to-double conversions on JDK 17); large inputs are split into fixed chunks that run in
 * parallel on the common fork-join pool.
 */
public final class Averager {
  /** Floats per parallel task (4 MB of output). */
  static final int MEAN_CHUNK = 1 << 20;

  /** Below this many floats in all, averaging runs on the calling thread. */
  public static final long PARALLEL_THRESHOLD = 1L << 21;

  private Averager() {}

  /**
   * A running weighted sum of flat float arrays, in double, for {@code treeAggregate}, which adds
   * and merges partial sums on the executors in an order of Spark's choosing: {@code Σ w_i·x_i} in
   * double, divided once by {@code Σ w_i} and rounded once to float, is exact for identical inputs
   * and the same up to double rounding whatever the tree. Starts without an array, so that an empty
   * sum (the zero value of a {@code treeAggregate}) costs nothing to ship, and allocates it on the
   * first {@link #add}.
   */
  public static final class Sum implements Serializable {
    private static final long serialVersionUID = 1L;

    private double[] sum;
    private double weight;

    /** An empty sum. */
    public Sum() {}

    /**
     * A sum already taken elsewhere (an all-reduce between executors): {@code values} (kept, not
     * copied) of total {@code weight}.
     */
    public static Sum ofTotals(double[] values, double weight) {
      Sum s = new Sum();
      s.sum = values;
      s.weight = weight;
      return s;
    }

    /** Adds {@code weight * values}; all arrays added must have the same length. */
    public Sum add(float[] values, double weight) {
      double[] s = accumulator(values.length, weight);
      for (int j = 0; j < s.length; j++) {
        s[j] += weight * values[j];
      }
      return this;
    }

    /** Adds {@code weight * codec.decode(values)}: a worker's offset sent in 16 bits. */
    public Sum add(short[] values, Compression codec, double weight) {
      double[] s = accumulator(values.length, weight);
      float[] table = codec.decodeTable();
      for (int j = 0; j < s.length; j++) {
        s[j] += weight * table[values[j] & 0xffff];
      }
      return this;
    }

    /** The sum to add {@code n} values of {@code weight} to (allocated on the first add). */
    private double[] accumulator(int n, double weight) {
      if (sum == null) {
        sum = new double[n];
      } else {
        checkLength(n);
      }
      this.weight += weight;
      return sum;
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
   * The weighted mean of flat arrays of equal length, {@code Σ w_i x_i / Σ w_i} by the rule above
   * (the driver's plain averaging of the workers' weights, in partition order), a new array.
   *
   * @throws IllegalArgumentException when there are no arrays, the lengths differ or a weight is
   *     not positive
   */
  public static float[] weightedMean(List<float[]> values, double[] weights) {
    float[][] xs = values.toArray(new float[0][]);
    float[] a = fractions(weights, xs.length);
    int n = checkLengths(xs, -1);
    float[] y = new float[n];
    MeanKernels.inParallel(n, (from, to) -> MeanKernels.meanRange(xs, a, weights, y, from, to));
    return y;
  }

  /**
   * {@code base + Σ_i scales_i·offsets_i}, a new array: elastic averaging moves the centre by
   * {@code alpha} times the workers' offsets, compressed averaging adds the weighted mean of the
   * workers' offsets to the centre. Accumulated in float in the order given, then added to {@code
   * base}.
   */
  public static float[] offset(float[] base, List<float[]> offsets, double[] scales) {
    float[][] ds = offsets.toArray(new float[0][]);
    checkLengths(ds, base.length);
    float[] a = floats(scales, ds.length);
    return MeanKernels.offset(
        base,
        a,
        (k, ak, y, lo, hi) -> {
          float[] d = ds[k];
          for (int j = lo; j < hi; j++) {
            y[j] += ak * d[j];
          }
        });
  }

  /**
   * Like {@link #offset(float[], List, double[])} for offsets sent in 16 bits ({@link
   * Compression#FP16} or {@link Compression#BF16}): each is decoded as it is added, in float.
   */
  public static float[] offset(
      float[] base, List<short[]> offsets, Compression codec, double[] scales) {
    if (codec == Compression.NONE) {
      throw new IllegalArgumentException("16-bit offsets need FP16 or BF16, not NONE");
    }
    short[][] ds = offsets.toArray(new short[0][]);
    for (short[] d : ds) {
      if (d.length != base.length) {
        throw new IllegalArgumentException(
            "Cannot add " + d.length + " offsets to " + base.length + " values");
      }
    }
    float[] a = floats(scales, ds.length);
    float[] table = codec.decodeTable();
    return MeanKernels.offset(
        base,
        a,
        (k, ak, y, lo, hi) -> {
          short[] d = ds[k];
          for (int j = lo; j < hi; j++) {
            y[j] += ak * table[d[j] & 0xffff];
          }
        });
  }

  /**
   * The element-wise means with equal weights, by the rule above: {@code outputs.get(t)} becomes
   * the mean of the arrays {@code inputs.get(t)} (all of its length), in parallel when they are
   * large ({@link org.sparknet.api.WeightCollection#mean} averages its tensors this way).
   *
   * @throws IllegalArgumentException when a tensor has no inputs or their lengths differ
   */
  public static void equalMeans(List<float[][]> inputs, List<float[]> outputs) {
    if (inputs.size() != outputs.size()) {
      throw new IllegalArgumentException(
          inputs.size() + " lists of inputs but " + outputs.size() + " outputs");
    }
    int n = inputs.isEmpty() ? 0 : inputs.get(0).length;
    for (int t = 0; t < inputs.size(); t++) {
      if (inputs.get(t).length != n) {
        throw new IllegalArgumentException(
            "Tensor " + t + " has " + inputs.get(t).length + " inputs, tensor 0 has " + n);
      }
      checkLengths(inputs.get(t), outputs.get(t).length);
    }
    if (n == 0) {
      return;
    }
    double[] equal = new double[n];
    Arrays.fill(equal, 1.0);
    MeanKernels.meanChunks(inputs, outputs, fractions(equal, n), equal);
  }

  /** {@code w_i / Σ w} as floats (index 0 unused by the rule but kept for symmetry). */
  private static float[] fractions(double[] weights, int n) {
    if (n == 0) {
      throw new IllegalArgumentException("Cannot average an empty list of arrays");
    }
    if (weights.length != n) {
      throw new IllegalArgumentException(n + " arrays but " + weights.length + " weights");
    }
    double total = 0;
    for (double w : weights) {
      if (!(w > 0) || Double.isInfinite(w)) {
        throw new IllegalArgumentException("Averaging weights must be positive but got " + w);
      }
      total += w;
    }
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (weights[i] / total);
    }
    return a;
  }

  private static float[] floats(double[] scales, int n) {
    if (scales.length != n) {
      throw new IllegalArgumentException(n + " arrays but " + scales.length + " scales");
    }
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) scales[i];
    }
    return a;
  }

  /** The common length of {@code xs} (which must equal {@code expected} unless it is -1). */
  private static int checkLengths(float[][] xs, int expected) {
    int n = expected >= 0 ? expected : xs.length == 0 ? 0 : xs[0].length;
    for (float[] x : xs) {
      if (x.length != n) {
        throw new IllegalArgumentException(
            "Cannot average arrays of " + x.length + " and " + n + " values");
      }
    }
    return n;
  }

  /**
   * Sets each array of every member to the members' mean, in place in native memory (no heap
   * copies), by the rule above: members 1..k-1 are turned into their differences from member 0
   * (OpenBLAS), member 0 adds {@code 1/k} of each, and the mean is copied to the others. {@code
   * members.get(i)} are member {@code i}'s arrays, all members in the same order and shapes.
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
        members.get(i).get(a).addScaled(-1f, acc);
      }
      for (int i = 1; i < members.size(); i++) {
        acc.addScaled(inverse, members.get(i).get(a));
      }
      for (int i = 1; i < members.size(); i++) {
        members.get(i).get(a).copyFrom(acc);
      }
    }
  }
}
