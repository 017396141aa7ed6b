package org.sparknet.api.internal.averaging;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sparknet.api.averaging.Averager;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.internal.averaging.AveragingStrategy.Sent;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.train.Averaging;
import org.sparknet.ndarray.Shape;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * Each averaging rule whole, worker side through driver side, on both driver paths (results kept in
 * partition order, and the running double sum of {@code treeAggregate}), for every combination of
 * plain or elastic with 32-bit, FP16 and BF16 results.
 */
public class AveragingStrategyTest {
  private static final int N = 3000;
  private static final WeightLayout LAYOUT =
      WeightLayout.of(List.of("fc"), List.of(List.of(Shape.of(N))));
  private static final List<Averaging> RULES = List.of(Averaging.PLAIN, Averaging.elastic(0.25));

  /** The rule a trainer with these settings uses ({@code WorkerPlans.averaging}). */
  public static AveragingStrategy rule(Averaging a, Compression codec) {
    AveragingStrategy r =
        a.isElastic() ? AveragingStrategy.elastic(a.alpha()) : AveragingStrategy.plain();
    return codec == Compression.NONE ? r : AveragingStrategy.compressed(r, codec);
  }

  private static float[] random(long seed, float scale) {
    Random r = new Random(seed);
    float[] x = new float[N];
    for (int i = 0; i < N; i++) {
      x[i] = (float) r.nextGaussian() * scale;
    }
    return x;
  }

  /** Workers that send what the rule says, combined on the driver and through the sum. */
  private static float[][] round(AveragingStrategy rule, float[] centre, float[][] workers) {
    List<float[]> values = new ArrayList<>();
    List<short[]> packed = new ArrayList<>();
    double[] weights = new double[workers.length];
    Averager.Sum sum = new Averager.Sum();
    for (int p = 0; p < workers.length; p++) {
      Sent s =
          rule.send(workers[p], centre, 10L * (p + 1), LAYOUT, new AveragingStrategy.SendBuffers());
      assertNull(s.divergence(), rule + ": " + s.divergence());
      weights[p] = s.weight();
      if (s.packed() != null) {
        packed.add(s.packed());
        sum.add(s.packed(), rule.compression(), s.weight());
      } else {
        values.add(s.values());
        sum.add(s.values(), s.weight());
      }
    }
    return new float[][] {
      rule.combineKept(centre, values, packed, weights), rule.combineSum(centre, sum)
    };
  }

  /**
   * Identical inputs come back bit for bit: plain averaging of identical workers returns their
   * weights; every rule that sends offsets returns the centre when the workers stayed on it. A rule
   * that scaled the offsets by their total weight instead of 1/total moved the centre here.
   */
  @Test
  void identicalInputsComeBackExactly() {
    float[] w = random(1, 1f);
    for (Averaging a : RULES) {
      for (Compression codec : Compression.values()) {
        AveragingStrategy rule = rule(a, codec);
        boolean offsets = a.isElastic() || codec != Compression.NONE;
        float[] centre = offsets ? w : random(2, 1f);
        float[][] next = round(rule, centre, new float[][] {w.clone(), w.clone(), w.clone()});
        assertArrayEquals(w, next[0], rule + ", kept on the driver");
        assertArrayEquals(w, next[1], rule + ", summed");
      }
    }
  }

  /**
   * Each rule against its closed form in double: plain, the example-weighted mean of the weights
   * (or the centre plus the weighted mean of the decoded offsets); elastic, the centre plus alpha
   * times the sum of the offsets. Both driver paths agree with it within float rounding (and 16-bit
   * rounding of the offsets, which the closed form decodes too). Elastic combined with the plain
   * scales gave 0.35 for 0.05 here.
   */
  @Test
  void everyCombinationMatchesItsClosedForm() {
    float[] centre = random(3, 1f);
    float[][] workers = new float[3][];
    for (int p = 0; p < 3; p++) {
      float[] d = random(10 + p, 0.01f);
      workers[p] = centre.clone();
      for (int i = 0; i < N; i++) {
        workers[p][i] += d[i];
      }
    }
    for (Averaging a : RULES) {
      for (Compression codec : Compression.values()) {
        AveragingStrategy rule = rule(a, codec);
        double[] weights = a.isElastic() ? new double[] {1, 1, 1} : new double[] {10, 20, 30};
        double total = a.isElastic() ? 1 / a.alpha() : 60;
        float[] expected = new float[N];
        for (int i = 0; i < N; i++) {
          double s = 0;
          for (int p = 0; p < 3; p++) {
            float d = workers[p][i] - centre[i];
            double sent = codec == Compression.NONE ? d : codec.decode(codec.encode(d));
            s += weights[p] * (a.isElastic() || codec != Compression.NONE ? sent : workers[p][i]);
          }
          double base = a.isElastic() || codec != Compression.NONE ? centre[i] : 0;
          expected[i] = (float) (base + s / total);
        }
        float[][] next = round(rule, centre, workers);
        NDAssert.assertAllClose(expected, next[0], Tolerance.FLOAT);
        NDAssert.assertAllClose(expected, next[1], Tolerance.FLOAT);
      }
    }
  }

  /**
   * The worker side: plain sends its weights with its examples as weight and keeps nothing of its
   * own; elastic (compressed or not) sends with weight 1 and keeps {@code w - alpha (w - c)}, which
   * is checkpoint state. Without the pull (keep returning false) the worker stayed at w here.
   */
  @Test
  void workersSendAndKeepWhatTheirRuleSays() {
    float[] centre = random(4, 1f);
    float[] w = random(5, 1f);
    for (Compression codec : Compression.values()) {
      AveragingStrategy plain = rule(Averaging.PLAIN, codec);
      float[] kept = w.clone();
      Sent s = plain.send(kept, centre, 40, LAYOUT, new AveragingStrategy.SendBuffers());
      assertEquals(40.0, s.weight());
      assertFalse(plain.keep(kept, centre));
      assertArrayEquals(w, kept);
      assertFalse(plain.workersKeepWeights());
      assertFalse(plain.checkpointsWorkerWeights());

      AveragingStrategy elastic = rule(Averaging.elastic(0.25), codec);
      kept = w.clone();
      s = elastic.send(kept, centre, 40, LAYOUT, new AveragingStrategy.SendBuffers());
      assertEquals(1.0, s.weight());
      assertTrue(elastic.keep(kept, centre));
      for (int i = 0; i < N; i++) {
        assertEquals(w[i] - 0.25f * (w[i] - centre[i]), kept[i], 0f, "index " + i);
      }
      assertTrue(elastic.workersKeepWeights());
      assertTrue(elastic.checkpointsWorkerWeights(), elastic.toString());
      assertEquals(codec, elastic.compression());
    }
    float[] stay = w.clone();
    assertFalse(rule(Averaging.elastic(0), Compression.NONE).keep(stay, centre));
    assertArrayEquals(w, stay, "alpha 0: the workers train on their own");
  }

  /**
   * A non-finite weight is a divergence naming the layer and index; an FP16 offset beyond 65504
   * names the range and BF16 as the way out, where BF16 carries it.
   */
  @Test
  void nonFiniteWeightsAndOffsetsBeyondTheFormatAreDivergences() {
    float[] centre = new float[N];
    float[] nan = new float[N];
    nan[7] = Float.NaN;
    for (Averaging a : RULES) {
      for (Compression codec : Compression.values()) {
        AveragingStrategy rule = rule(a, codec);
        Sent s = rule.send(nan, centre, 8, LAYOUT, new AveragingStrategy.SendBuffers());
        assertTrue(
            s.divergence() != null && s.divergence().startsWith("weight fc"),
            rule + ": " + s.divergence());
      }
    }
    float[] far = new float[N];
    far[3] = 70000f;
    Sent fp16 =
        rule(Averaging.PLAIN, Compression.FP16)
            .send(far, centre, 8, LAYOUT, new AveragingStrategy.SendBuffers());
    assertTrue(fp16.divergence().contains("beyond FP16's range"), fp16.divergence());
    Sent bf16 =
        rule(Averaging.PLAIN, Compression.BF16)
            .send(far, centre, 8, LAYOUT, new AveragingStrategy.SendBuffers());
    assertNull(bf16.divergence());
  }
}
