package org.sparknet.api.internal.averaging;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.internal.wire.FlatWeights;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.WeightLayout;

/**
 * One averaging rule, whole: its worker side (what a worker sends after its steps and which weights
 * it keeps), its driver side (how the round's results combine into the next weights) and its
 * checkpoint state (what a resume needs besides the trainer's weights). {@link Averager} does the
 * arithmetic for all of them.
 *
 * <ul>
 *   <li>{@link Plain}: workers send their weights, weighted by the examples they fed; the next
 *       weights are the weighted mean, and every worker starts the next round from it.
 *   <li>{@link Elastic}: EASGD. Workers send {@code d = w - c}, keep {@code w - alpha d} as their
 *       own weights between rounds, and the centre moves by {@code alpha} times the sum of the
 *       offsets. The workers' own weights are checkpoint state.
 *   <li>{@link Compressed}: another rule's results sent as 16-bit offsets from the round's centre;
 *       the inner rule keeps its weights, its example weights and its scale of the offsets.
 * </ul>
 *
 * <p>The synchronous round reaches a rule through {@link #send}, {@link #keep} and {@link
 * #combine}. Other ways of moving the results (an all-reduce between executors, a parameter server)
 * reuse the worker side unchanged and add their own way of summing; {@code docs/architecture.md}
 * says where they plug in.
 */
public abstract sealed class AveragingStrategy implements Serializable {
  private static final long serialVersionUID = 1L;

  // Properties of the rule rather than behaviour: each rule states them once, at construction.
  private final boolean workersKeepWeights;
  private final Compression compression;

  private AveragingStrategy(boolean workersKeepWeights, Compression compression) {
    this.workersKeepWeights = workersKeepWeights;
    this.compression = compression;
  }

  /** Plain averaging. */
  public static AveragingStrategy plain() {
    return new Plain();
  }

  /** Elastic averaging with moving rate {@code alpha} (checked by the public settings). */
  public static AveragingStrategy elastic(float alpha) {
    return new Elastic(alpha);
  }

  /** {@code inner}'s results sent as 16-bit offsets ({@link Compression#FP16} or BF16). */
  public static AveragingStrategy compressed(AveragingStrategy inner, Compression codec) {
    return new Compressed(inner, codec);
  }

  // ------------------------------------------------------------------ worker side

  /**
   * Whether a worker keeps its own weights from round to round; false: it starts every round from
   * the round's weights. A keeping worker still takes the round's weights when the trainer's were
   * replaced, and its own from a checkpoint in the first round after a resume.
   */
  public final boolean workersKeepWeights() {
    return workersKeepWeights;
  }

  /**
   * What a worker with weights {@code w} (copied out of its net) sends after a round that started
   * from {@code centre}, having fed {@code examples}: values in buffers of {@code reuse}, or the
   * divergence (non-finite weights, or offsets the wire format cannot carry).
   */
  public abstract Sent send(
      float[] w, float[] centre, long examples, WeightLayout layout, SendBuffers reuse);

  /**
   * Changes {@code w} in place into what the worker keeps after sending; returns whether it changed
   * (the net must then be given {@code w}).
   */
  public abstract boolean keep(float[] w, float[] centre);

  /** The weight of a worker's result in the combination, given the examples it fed. */
  abstract double weightOf(long examples);

  /** How the results travel: 32-bit values, or 16-bit offsets in this format. */
  public final Compression compression() {
    return compression;
  }

  // ------------------------------------------------------------------ driver side

  /**
   * The next weights from a round's results: from those kept in partition order on the driver, or
   * from the running sum of {@code treeAggregate}.
   *
   * @throws IllegalStateException when no partition sent values
   */
  public final float[] combine(float[] centre, RoundTotals totals) {
    if (!totals.hasValues()) {
      throw new IllegalStateException("No partition sent values");
    }
    return totals.kept()
        ? combineKept(centre, totals.keptValues(), totals.keptPacked(), totals.keptWeights())
        : combineSum(centre, totals.sum());
  }

  /**
   * The next weights from the results kept on the driver in partition order: 32-bit {@code values}
   * or 16-bit {@code packed} (the other list is empty) with their {@code weights}.
   */
  public abstract float[] combineKept(
      float[] centre, List<float[]> values, List<short[]> packed, double[] weights);

  /**
   * The next weights from a running sum of the results ({@code treeAggregate}). Rules whose workers
   * send offsets from the centre (elastic, and any rule compressed) move the centre by the summed
   * offset times {@link #offsetScale}; plain averaging, which sums weights, overrides this.
   */
  public float[] combineSum(float[] centre, Averager.Sum sum) {
    return sum.offset(centre, offsetScale(sum.weight()));
  }

  /** Each offset's factor when the next weights are {@code centre + Σ_i s_i d_i}. */
  abstract double[] offsetScales(double[] weights);

  /** The factor of a summed offset {@code Σ_i weight_i d_i} of total weight {@code total}. */
  abstract double offsetScale(double total);

  // ------------------------------------------------------------------ checkpoint

  /**
   * Whether a checkpoint holds each worker's own weights: a resumed run hands them back to the
   * workers, which would otherwise restart from the centre.
   */
  public boolean checkpointsWorkerWeights() {
    return workersKeepWeights();
  }

  /** What a worker sends: values or 16-bit offsets and their weight, or a divergence. */
  public record Sent(float[] values, short[] packed, double weight, String divergence) {
    public static Sent diverged(String what) {
      return new Sent(null, null, 0, what);
    }
  }

  /** Arrays a worker reuses every round for what it sends (see {@code Worker#train}). */
  public static final class SendBuffers {
    private float[] offsets;
    private short[] packed;

    float[] offsets(int n) {
      if (offsets == null || offsets.length != n) {
        offsets = new float[n];
      }
      return offsets;
    }

    short[] packed(int n) {
      if (packed == null || packed.length != n) {
        packed = new short[n];
      }
      return packed;
    }
  }

  /** The divergence of weights {@code w} whose largest value or offset is {@code max}, or null. */
  static String divergence(float[] w, float max, WeightLayout layout) {
    if (max <= Float.MAX_VALUE) {
      return null;
    }
    int bad = FlatWeights.firstNonFinite(w);
    return bad >= 0 ? "weight " + layout.toCollection(w).firstNonFinite() : "offset " + max;
  }

  /** Plain averaging: the example-weighted mean of the workers' weights. */
  static final class Plain extends AveragingStrategy {
    private static final long serialVersionUID = 1L;

    Plain() {
      super(false, Compression.NONE);
    }

    @Override
    public Sent send(
        float[] w, float[] centre, long examples, WeightLayout layout, SendBuffers reuse) {
      String bad = divergence(w, FlatWeights.firstNonFinite(w) < 0 ? 0f : Float.NaN, layout);
      return bad != null ? Sent.diverged(bad) : new Sent(w, null, weightOf(examples), null);
    }

    @Override
    public boolean keep(float[] w, float[] centre) {
      return false;
    }

    /** A worker's weights count by the examples it fed. */
    @Override
    double weightOf(long examples) {
      return examples;
    }

    @Override
    public float[] combineKept(
        float[] centre, List<float[]> values, List<short[]> packed, double[] weights) {
      return Averager.weightedMean(values, weights);
    }

    @Override
    public float[] combineSum(float[] centre, Averager.Sum sum) {
      return sum.mean();
    }

    @Override
    double[] offsetScales(double[] weights) {
      double total = Arrays.stream(weights).sum();
      double[] scales = new double[weights.length];
      for (int i = 0; i < scales.length; i++) {
        scales[i] = weights[i] / total;
      }
      return scales;
    }

    @Override
    double offsetScale(double total) {
      return 1 / total;
    }

    @Override
    public String toString() {
      return "plain";
    }
  }

  /** Elastic averaging (EASGD) with moving rate {@code alpha}. */
  static final class Elastic extends AveragingStrategy {
    private static final long serialVersionUID = 1L;
    private final float alpha;

    Elastic(float alpha) {
      super(true, Compression.NONE);
      this.alpha = alpha;
    }

    /** Sends {@code d = w - c}, weight 1. */
    @Override
    public Sent send(
        float[] w, float[] centre, long examples, WeightLayout layout, SendBuffers reuse) {
      float[] d = reuse.offsets(w.length);
      float max = 0f;
      for (int j = 0; j < w.length; j++) {
        float v = w[j] - centre[j];
        d[j] = v;
        max = Math.max(max, Math.abs(v));
      }
      String bad = divergence(w, max, layout);
      return bad != null ? Sent.diverged(bad) : new Sent(d, null, weightOf(examples), null);
    }

    /** A worker's offset counts once, whatever it fed. */
    @Override
    double weightOf(long examples) {
      return 1.0;
    }

    /** {@code w -= alpha (w - c)}: the worker's pull towards the centre. */
    @Override
    public boolean keep(float[] w, float[] centre) {
      if (alpha == 0f) {
        return false;
      }
      for (int j = 0; j < w.length; j++) {
        w[j] -= alpha * (w[j] - centre[j]);
      }
      return true;
    }

    @Override
    public float[] combineKept(
        float[] centre, List<float[]> values, List<short[]> packed, double[] weights) {
      return Averager.offset(centre, values, offsetScales(weights));
    }

    @Override
    double[] offsetScales(double[] weights) {
      double[] scales = new double[weights.length];
      Arrays.fill(scales, alpha);
      return scales;
    }

    @Override
    double offsetScale(double total) {
      return alpha;
    }

    @Override
    public String toString() {
      return "elastic(alpha=" + alpha + ")";
    }
  }

  /**
   * {@code inner}'s results sent as offsets from the round's centre in 16 bits: each worker sends
   * half the bytes, the driver decodes as it adds. FP16 offsets beyond its range are a divergence.
   */
  static final class Compressed extends AveragingStrategy {
    private static final long serialVersionUID = 1L;
    private final AveragingStrategy inner;

    Compressed(AveragingStrategy inner, Compression codec) {
      super(inner.workersKeepWeights(), codec);
      if (codec == Compression.NONE || inner instanceof Compressed) {
        throw new IllegalArgumentException(
            "Compressed averaging needs FP16 or BF16 around an uncompressed rule, not "
                + codec
                + " around "
                + inner);
      }
      this.inner = inner;
    }

    @Override
    public Sent send(
        float[] w, float[] centre, long examples, WeightLayout layout, SendBuffers reuse) {
      short[] packed = reuse.packed(w.length);
      float max = compression().encodeOffsets(w, centre, packed, 0, w.length);
      String bad = divergence(w, max, layout);
      if (bad != null) {
        return Sent.diverged(bad);
      }
      if (compression() == Compression.FP16 && max > Compression.FP16_MAX) {
        return Sent.diverged(
            "offset "
                + max
                + " from the centre, beyond FP16's range (65504); use bf16 compression or a lower"
                + " learning rate");
      }
      return new Sent(null, packed, weightOf(examples), null);
    }

    @Override
    public boolean keep(float[] w, float[] centre) {
      return inner.keep(w, centre);
    }

    @Override
    double weightOf(long examples) {
      return inner.weightOf(examples);
    }

    @Override
    public float[] combineKept(
        float[] centre, List<float[]> values, List<short[]> packed, double[] weights) {
      return Averager.offset(centre, packed, compression(), inner.offsetScales(weights));
    }

    @Override
    double[] offsetScales(double[] weights) {
      return inner.offsetScales(weights);
    }

    @Override
    double offsetScale(double total) {
      return inner.offsetScale(total);
    }

    @Override
    public String toString() {
      return inner + ", " + compression().cliName() + " offsets";
    }
  }
}
