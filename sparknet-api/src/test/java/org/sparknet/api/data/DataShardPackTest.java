package org.sparknet.api.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Packing a partition gathers rows in blocks and copies them once into the shard: examples of a
 * million floats (4 to a block) span three blocks, the last one partly filled. A copy that took
 * each block whole overran the shard ("arraycopy: last destination index 12582912 out of bounds for
 * float[10485760]"); one that skipped the partial block left examples 8 and 9 zero.
 */
class DataShardPackTest {
  private static List<Example> examples(int n, int size) {
    List<Example> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      float[] f = new float[size];
      Arrays.fill(f, i + 0.5f);
      f[size - 1] = -i;
      out.add(new Example(f, i % 3));
    }
    return out;
  }

  @Test
  void rowsAcrossBlocksArePackedInOrder() {
    int size = 1 << 20;
    DataShard s = DataShard.pack(4, examples(10, size).iterator(), size, "test data", null);
    assertEquals(10, s.count());
    assertEquals(size, s.featureSize());
    assertEquals(10L * size, s.features().length);
    for (int i = 0; i < 10; i++) {
      assertEquals(i + 0.5f, s.features()[i * size], "first value of example " + i);
      assertEquals(-i, s.features()[i * size + size - 1], "last value of example " + i);
      assertEquals(i % 3, s.label(i));
    }
  }

  @Test
  void smallRowsAndNoRows() {
    DataShard s = DataShard.pack(0, examples(5, 3).iterator());
    assertEquals(15, s.features().length);
    assertEquals(4.5f, s.features()[12]);
    DataShard empty = DataShard.pack(1, List.<Example>of().iterator());
    assertEquals(0, empty.count());
    assertEquals(0, empty.features().length);
  }

  @Test
  void anExampleOfAnotherSizeIsNamed() {
    List<Example> ex = new ArrayList<>(examples(3, 4));
    ex.add(new Example(new float[5], 0));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> DataShard.pack(2, ex.iterator(), 4, "Column 'features'", "blob 'data'"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "Column 'features' has 5 floats in example 3 of partition 2 but blob 'data'"
                    + " expects 4"),
        e.getMessage());
  }
}
