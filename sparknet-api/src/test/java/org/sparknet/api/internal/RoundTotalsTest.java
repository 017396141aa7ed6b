package org.sparknet.api.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sparknet.api.Compression;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

class RoundTotalsTest {

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
            "gpu:" + p);
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
    assertArrayEquals(w, merged.sum().mean());
  }
}
