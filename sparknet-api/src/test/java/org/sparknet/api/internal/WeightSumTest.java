package org.sparknet.api.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

class WeightSumTest {

  private static float[] random(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-6, 4)));
    }
    return a;
  }

  private static PartitionResult result(int p, long n, float[] w) {
    return new PartitionResult(p, n, 1, 0.5 * n, w, n, null, 0, 0, 0);
  }

  @Test
  void averagingIdenticalWeightsWithOddCountsIsExact() {
    float[] w = random(10_000, 1);
    WeightSum s = new WeightSum();
    long[] counts = {3, 7, 13, 1, 999};
    for (int p = 0; p < counts.length; p++) {
      s.add(result(p, counts[p], w.clone()));
    }
    assertArrayEquals(w, s.mean());
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
    WeightSum s = new WeightSum().add(result(0, 3, a)).add(result(1, 5, b));
    assertArrayEquals(expected, s.mean());
    WeightSum merged =
        new WeightSum()
            .merge(new WeightSum().add(result(0, 3, a)))
            .merge(new WeightSum().add(result(1, 5, b)));
    NDAssert.assertAllClose(expected, merged.mean(), Tolerance.EXACT);
    assertEquals(3, merged.examplesOf(0));
    assertEquals(5, merged.examplesOf(1));
  }

  @Test
  void emptyPartitionsAreNotCountedAndDivergenceKeepsTheLowestPartition() {
    float[] w = random(10, 4);
    WeightSum s =
        new WeightSum()
            .add(PartitionResult.empty(0))
            .add(result(1, 4, w))
            .add(new PartitionResult(3, 4, 1, Double.NaN, null, 4, "loss NaN", 0, 0, 0))
            .add(new PartitionResult(2, 4, 1, Double.NaN, null, 4, "loss Inf", 0, 0, 0));
    assertEquals(1, s.contributors());
    assertEquals(4, s.examples());
    assertArrayEquals(w, s.mean());
    assertEquals(2, s.divergedPartition());
    assertEquals("loss Inf", s.divergence());
  }

  @Test
  void restartedSolversAreCollectedAcrossMergesWithoutChangingTheSum() {
    float[] w = random(10, 5);
    WeightSum a =
        new WeightSum()
            .add(new PartitionResult(0, 4, 1, 2.0, w, 4, null, 0, 0, 0, false))
            .add(new PartitionResult(3, 4, 1, 2.0, w, 4, null, 0, 0, 0, true));
    WeightSum b = new WeightSum().add(new PartitionResult(1, 4, 1, 2.0, w, 4, null, 0, 0, 0, true));
    WeightSum merged = new WeightSum().merge(a).merge(b);
    assertEquals(java.util.List.of(1, 3), merged.restartedPartitions());
    assertEquals(java.util.List.of(), new WeightSum().add(result(0, 4, w)).restartedPartitions());
    assertEquals(12, merged.examples(), "a restarted partition's examples count once");
    assertArrayEquals(w, merged.mean());
  }
}
