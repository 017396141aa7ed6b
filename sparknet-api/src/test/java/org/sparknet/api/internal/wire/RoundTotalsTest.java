package org.sparknet.api.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.averaging.AveragingStrategyTest;
import org.sparknet.api.train.Averaging;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

class RoundTotalsTest {
  private static final AveragingStrategy PLAIN = AveragingStrategy.plain();

  private static float[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-6, 4)));
    }
    return a;
  }

  private static PartitionResult result(int p, long n, float[] w) {
    return result(p, n, w, false, null);
  }

  private static PartitionResult result(
      int p, long n, float[] w, boolean restarted, String divergence) {
    WorkerReport r =
        new WorkerReport(
            p,
            n,
            1,
            divergence == null ? 0.5 * n : Double.NaN,
            WorkerReport.WorkerTimings.NONE,
            restarted,
            divergence,
            "gpu:" + p,
            1000 + p);
    return new PartitionResult(r, divergence == null ? w : null, n);
  }

  @Test
  void averagingIdenticalWeightsWithOddCountsIsExact() {
    float[] w = random(10_000, 1);
    RoundTotals s = new RoundTotals(Compression.NONE);
    long[] counts = {3, 7, 13, 1, 999};
    for (int p = 0; p < counts.length; p++) {
      s.add(result(p, counts[p], w.clone()));
    }
    assertArrayEquals(w, s.sum().mean());
    assertEquals(1023, s.examples());
    assertEquals(3, s.examplesOf(1) + s.examplesOf(4) - 999 - 7 + 3);
  }

  @Test
  void weightedMeanMatchesDoubleArithmeticAndMergeEqualsAdd() {
    float[] a = random(1000, 2);
    float[] b = random(1000, 3);
    float[] expected = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      expected[i] = (float) ((3.0 * a[i] + 5.0 * b[i]) / 8.0);
    }
    RoundTotals s = new RoundTotals(Compression.NONE).add(result(0, 3, a)).add(result(1, 5, b));
    assertArrayEquals(expected, s.sum().mean());
    RoundTotals merged =
        new RoundTotals(Compression.NONE)
            .merge(new RoundTotals(Compression.NONE).add(result(0, 3, a)))
            .merge(new RoundTotals(Compression.NONE).add(result(1, 5, b)));
    NDAssert.assertAllClose(expected, merged.sum().mean(), Tolerance.EXACT);
    assertEquals(3, merged.examplesOf(0));
    assertEquals(5, merged.examplesOf(1));
  }

  @Test
  void emptyPartitionsAreNotCountedAndDivergenceKeepsTheLowestPartition() {
    float[] w = random(10, 4);
    RoundTotals s =
        new RoundTotals(Compression.NONE)
            .add(PartitionResult.idle(0))
            .add(result(1, 4, w))
            .add(result(3, 4, w, false, "loss NaN"))
            .add(result(2, 4, w, false, "loss Inf"));
    assertEquals(4, s.sum().weight(), "only partition 1 contributed");
    assertEquals(4, s.examples());
    assertArrayEquals(w, s.sum().mean());
    assertEquals(2, s.divergedPartition());
    assertEquals("loss Inf", s.divergence());
  }

  @Test
  void restartedSolversAreCollectedAcrossMergesWithoutChangingTheSum() {
    float[] w = random(10, 5);
    RoundTotals a =
        new RoundTotals(Compression.NONE)
            .add(result(0, 4, w, false, null))
            .add(result(3, 4, w, true, null));
    RoundTotals b = new RoundTotals(Compression.NONE).add(result(1, 4, w, true, null));
    RoundTotals merged = new RoundTotals(Compression.NONE).merge(a).merge(b);
    assertEquals(java.util.List.of(1, 3), merged.restartedPartitions());
    assertEquals(
        java.util.List.of(),
        new RoundTotals(Compression.NONE).add(result(0, 4, w)).restartedPartitions());
    assertEquals(12, merged.examples(), "a restarted partition's examples count once");
    assertEquals(java.util.Arrays.asList("gpu:0", "gpu:1", null, "gpu:3"), merged.devices());
    assertArrayEquals(new long[] {1000, 1001, 0, 1003}, merged.lineages(), "each result's lineage");
    assertArrayEquals(w, merged.sum().mean());
  }

  /**
   * On the driver the results are kept and averaged once at the end (Averager's float rule): the
   * same as the running double sum of the tree path within a float tolerance for close inputs, as
   * workers' weights are, and exact for identical ones whatever the counts. Averaging with equal
   * weights instead of the example counts failed here (23.9737 for 23.9673).
   */
  @Test
  void onTheDriverResultsAreAveragedOnceAndAgreeWithTheTreeSum() {
    float[] a = random(5000, 6);
    float[] b = a.clone();
    float[] c = a.clone();
    for (int i = 0; i < a.length; i++) {
      b[i] += 1e-3f * a[(i * 7) % a.length];
      c[i] -= 2e-3f * a[(i * 13) % a.length];
    }
    RoundTotals driver = RoundTotals.onDriver(Compression.NONE);
    RoundTotals tree = new RoundTotals(Compression.NONE);
    for (RoundTotals t : List.of(driver, tree)) {
      t.add(result(0, 3, a)).add(PartitionResult.idle(1)).add(result(2, 5, b)).add(result(3, 7, c));
    }
    float[] centre = random(5000, 9);
    NDAssert.assertAllClose(
        PLAIN.combine(centre, tree), PLAIN.combine(centre, driver), Tolerance.FLOAT);
    assertTrue(driver.hasValues());
    assertEquals(15, driver.examples());

    RoundTotals same = RoundTotals.onDriver(Compression.NONE);
    long[] counts = {3, 7, 13, 999};
    for (int p = 0; p < counts.length; p++) {
      same.add(result(p, counts[p], a.clone()));
    }
    assertArrayEquals(a, PLAIN.combine(centre, same));
    assertThrows(IllegalStateException.class, () -> same.merge(new RoundTotals(Compression.NONE)));
  }

  /**
   * Compressed offsets: the driver adds their example-weighted mean to the centre; the tree path
   * decodes them into its double sum; elastic averaging moves the centre by alpha times their sum.
   * Equal scales instead of the example-weighted ones failed here (39.56 for 59.34).
   */
  @Test
  void compressedOffsetsAreDecodedAndAddedToTheCentre() {
    float[] centre = random(3000, 10);
    float[] d0 = random(3000, 11);
    float[] d1 = random(3000, 12);
    for (Compression codec : List.of(Compression.FP16, Compression.BF16)) {
      short[] p0 = encode(codec, d0);
      short[] p1 = encode(codec, d1);
      float[] plain = new float[centre.length];
      float[] elastic = new float[centre.length];
      for (int i = 0; i < centre.length; i++) {
        double x0 = codec.decode(p0[i]);
        double x1 = codec.decode(p1[i]);
        plain[i] = (float) (centre[i] + (1 * x0 + 3 * x1) / 4);
        elastic[i] = (float) (centre[i] + 0.25 * (x0 + x1));
      }
      for (RoundTotals t : List.of(RoundTotals.onDriver(codec), new RoundTotals(codec))) {
        t.add(packed(0, 1, p0, 1)).add(packed(1, 3, p1, 3));
        NDAssert.assertAllClose(
            plain,
            AveragingStrategyTest.rule(Averaging.PLAIN, codec).combine(centre, t),
            Tolerance.FLOAT);
      }
      for (RoundTotals t : List.of(RoundTotals.onDriver(codec), new RoundTotals(codec))) {
        t.add(packed(0, 1, p0, 1.0)).add(packed(1, 3, p1, 1.0));
        NDAssert.assertAllClose(
            elastic,
            AveragingStrategyTest.rule(Averaging.elastic(0.25), codec).combine(centre, t),
            Tolerance.FLOAT);
      }
    }
  }

  private static short[] encode(Compression codec, float[] d) {
    short[] out = new short[d.length];
    for (int i = 0; i < d.length; i++) {
      out[i] = codec.encode(d[i]);
    }
    return out;
  }

  private static PartitionResult packed(int p, long n, short[] offsets, double weight) {
    WorkerReport r =
        new WorkerReport(p, n, 1, 0.5 * n, WorkerReport.WorkerTimings.NONE, false, null, "cpu", 0);
    return new PartitionResult(r, null, offsets, weight);
  }
}
