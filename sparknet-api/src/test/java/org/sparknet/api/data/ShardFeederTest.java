package org.sparknet.api.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.ndarray.NDArray;

class ShardFeederTest {

  /** Example i has features [i, 100 + i] and label i. */
  private static DataShard shard(int n) {
    List<Example> ex = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ex.add(new Example(new float[] {i, 100 + i}, i));
    }
    return DataShard.pack(3, ex.iterator());
  }

  /** Feeds {@code steps} batches and returns the labels seen, checking features match them. */
  private static int[] feed(ShardFeeder f, int batch, int steps) {
    int[] seen = new int[batch * steps];
    try (NDArray data = NDArray.zeros(batch, 2);
        NDArray label = NDArray.zeros(batch)) {
      Map<String, NDArray> in = new LinkedHashMap<>();
      in.put("data", data);
      in.put("label", label);
      for (int s = 0; s < steps; s++) {
        f.fill(in);
        for (int r = 0; r < batch; r++) {
          int l = (int) label.get(r);
          assertEquals(l, data.get(r, 0), "feature 0 of row " + r);
          assertEquals(100 + l, data.get(r, 1), "feature 1 of row " + r);
          seen[s * batch + r] = l;
        }
      }
    }
    return seen;
  }

  /**
   * The feeder vouches for finite values only when its shard has no other, features and labels
   * alike (a regression label has no classes to be checked against), so that a shard with a NaN is
   * still checked batch by batch and named there. Broken builds this catches: allFinite returning
   * true without scanning let the NaN shard through here; scanning the features alone let the NaN
   * label through.
   */
  @Test
  void aShardVouchesForFiniteValuesOnlyWhenAllAreFinite() {
    assertTrue(new ShardFeeder(shard(4), "data", "label", 1, 0, 0).writesFiniteValues());
    List<Example> ex = new ArrayList<>();
    ex.add(new Example(new float[] {1, 2}, 0));
    ex.add(new Example(new float[] {Float.NaN, 2}, 1));
    DataShard withNaN = DataShard.pack(0, ex.iterator());
    assertFalse(new ShardFeeder(withNaN, "data", "label", 1, 0, 0).writesFiniteValues());
    ex.set(1, new Example(new float[] {Float.NEGATIVE_INFINITY, 2}, 1));
    assertFalse(DataShard.pack(0, ex.iterator()).allFinite());
    ex.set(1, new Example(new float[] {1, 2}, Float.NaN));
    assertFalse(DataShard.pack(0, ex.iterator()).allFinite(), "a NaN label");
  }

  @Test
  void everyExampleOncePerEpochInAnOrderThatChangesPerEpoch() {
    DataShard s = shard(12);
    ShardFeeder f = new ShardFeeder(s, "data", "label", 42, 3, 0);
    int[] seen = feed(f, 4, 9); // 3 epochs of 12
    List<int[]> epochs = new ArrayList<>();
    for (int e = 0; e < 3; e++) {
      int[] ep = Arrays.copyOfRange(seen, e * 12, e * 12 + 12);
      epochs.add(ep.clone());
      Arrays.sort(ep);
      for (int i = 0; i < 12; i++) {
        assertEquals(i, ep[i], "epoch " + e + " must hold every example exactly once");
      }
    }
    assertTrue(!Arrays.equals(epochs.get(0), epochs.get(1)), "order reshuffled per epoch");
    assertEquals(36, f.examplesFed());
    assertEquals(3, f.epoch());
    assertArrayEquals(ShardFeeder.epochOrder(12, 42, 3, 1), epochs.get(1));
  }

  @Test
  void aFeederStartedAtAPositionContinuesExactly() {
    DataShard s = shard(10);
    int[] whole = feed(new ShardFeeder(s, "data", "label", 7, 0, 0), 3, 10);
    int[] tail = feed(new ShardFeeder(s, "data", "label", 7, 0, 9), 3, 7);
    assertArrayEquals(Arrays.copyOfRange(whole, 9, 30), tail);
  }

  @Test
  void aShardSmallerThanABatchWraps() {
    DataShard s = shard(3);
    ShardFeeder f = new ShardFeeder(s, "data", "label", 1, 0, 0);
    int[] seen = feed(f, 8, 3);
    for (int e = 0; e < 8; e++) {
      int[] ep = Arrays.copyOfRange(seen, e * 3, e * 3 + 3);
      Arrays.sort(ep);
      assertArrayEquals(new int[] {0, 1, 2}, ep);
    }
    assertEquals(24, f.examplesFed());
  }

  @Test
  void sequentialWalksInStoredOrder() {
    int[] seen = feed(ShardFeeder.sequential(shard(5), "data", "label"), 5, 2);
    assertArrayEquals(new int[] {0, 1, 2, 3, 4, 0, 1, 2, 3, 4}, seen);
  }

  @Test
  void featureSizeMismatchNamesBlobExpectedAndFound() {
    ShardFeeder f = new ShardFeeder(shard(4), "data", "label", 1, 0, 0);
    try (NDArray data = NDArray.zeros(2, 3);
        NDArray label = NDArray.zeros(2)) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> f.fill(Map.of("data", data, "label", label)));
      assertTrue(e.getMessage().contains("'data'"), e.getMessage());
      assertTrue(e.getMessage().contains("expects 3"), e.getMessage());
      assertTrue(e.getMessage().contains("has 2"), e.getMessage());
      IllegalArgumentException missing =
          assertThrows(IllegalArgumentException.class, () -> f.fill(Map.of("label", label)));
      assertTrue(missing.getMessage().contains("no input blob 'data'"), missing.getMessage());
    }
  }

  @Test
  void packRejectsExamplesOfAnotherSizeNamingSourceAndSizes() {
    List<Example> ex = List.of(new Example(new float[4], 0), new Example(new float[3], 1));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DataShard.pack(2, ex.iterator(), 4, "Column 'pixels'", "blob 'data' [8, 4]"));
    assertTrue(e.getMessage().contains("Column 'pixels' has 3 floats"), e.getMessage());
    assertTrue(e.getMessage().contains("expects 4"), e.getMessage());
    assertTrue(e.getMessage().contains("partition 2"), e.getMessage());
  }

  @Test
  void packKeepsOrderAndEmptyShardsAreEmpty() {
    DataShard s = shard(40);
    assertEquals(40, s.count());
    assertEquals(2, s.featureSize());
    assertEquals(39f, s.label(39));
    assertEquals(139f, s.features()[79]);
    assertTrue(DataShard.pack(0, List.<Example>of().iterator()).isEmpty());
    assertThrows(
        IllegalArgumentException.class,
        () -> new ShardFeeder(DataShard.pack(0, List.<Example>of().iterator()), "d", "l", 0, 0, 0));
  }

  @Test
  void recurrentNetsAreFedTimeMajorWindows() {
    // 5 windows of T + 1 = 4 tokens: window i is [10i, 10i+1, 10i+2, 10i+3]
    List<Example> ex = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ex.add(new Example(new float[] {10 * i, 10 * i + 1, 10 * i + 2, 10 * i + 3}, 0));
    }
    DataShard s = DataShard.pack(0, ex.iterator());
    ShardFeeder f = ShardFeeder.sequential(s, "data", "label").withContBlob("cont");
    Map<String, org.sparknet.ndarray.Shape> shapes =
        Map.of(
            "data",
            org.sparknet.ndarray.Shape.of(3, 2),
            "cont",
            org.sparknet.ndarray.Shape.of(3, 2));
    assertEquals(4, ShardFeeder.exampleSize(shapes, "data", "cont"));
    assertEquals(2, ShardFeeder.batchSize(shapes, "data", "cont"));
    try (NDArray data = NDArray.zeros(3, 2);
        NDArray cont = NDArray.zeros(3, 2);
        NDArray label = NDArray.zeros(3, 2)) {
      Map<String, NDArray> in = new LinkedHashMap<>();
      in.put("data", data);
      in.put("cont", cont);
      in.put("label", label);
      f.fill(in); // streams 0 and 1 get windows 0 and 1
      assertArrayEquals(new float[] {0, 10, 1, 11, 2, 12}, data.toArray());
      assertArrayEquals(new float[] {1, 11, 2, 12, 3, 13}, label.toArray());
      assertArrayEquals(new float[] {0, 0, 1, 1, 1, 1}, cont.toArray());
      assertEquals(2, f.examplesFed());
      f.fill(in);
      f.fill(in); // windows 4 and then 0 again (wrapped)
      assertArrayEquals(new float[] {40, 0, 41, 1, 42, 2}, data.toArray());
      assertEquals(6, f.examplesFed());
    }
    try (NDArray data = NDArray.zeros(4, 2);
        NDArray cont = NDArray.zeros(4, 2)) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class, () -> f.fill(Map.of("data", data, "cont", cont)));
      assertTrue(e.getMessage().contains("windows of 5 tokens"), e.getMessage());
    }
  }
}
