package org.sparknet.apps.data.formats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.data.Example;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Parquet's examples cut into the workers' partitions keep the files' order: 1,000 examples in 7
 * uneven parent partitions (as Parquet files of different sizes give) become n contiguous runs of
 * nearly equal length. With {@code repartition}, as ParquetFormat had, 3, 8 and 12 partitions
 * failed at partition 0's second example, dealt from another parent ("0 3 3, of 3 partitions ==>
 * expected: <1> but was: <3>").
 */
class OrderedPartitionsTest {
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 8, 12})
  void partitionsAreContiguousRunsInOrder(int n) {
    int[] sizes = {10, 300, 0, 90, 250, 1, 349};
    List<List<Example>> parts = new ArrayList<>();
    int next = 0;
    for (int s : sizes) {
      List<Example> p = new ArrayList<>();
      for (int i = 0; i < s; i++, next++) {
        p.add(new Example(new float[] {next}, next % 10));
      }
      parts.add(p);
    }
    JavaRDD<Example> out = OrderedPartitions.of(LocalSpark.partitioned(parts), n);
    // "partition feature label" strings: the test session's Kryo registers String[], which a
    // collect of them needs, and not the arrays glom would collect.
    List<String> got =
        out.mapPartitionsWithIndex(
                (p, it) -> {
                  List<String> tagged = new ArrayList<>();
                  it.forEachRemaining(
                      e -> tagged.add(p + " " + (int) e.features()[0] + " " + (int) e.label()));
                  return tagged.iterator();
                },
                true)
            .collect();
    assertEquals(n, out.getNumPartitions());
    int[] sizes2 = new int[n];
    int expected = 0;
    for (String line : got) {
      String[] f = line.split(" ");
      int p = Integer.parseInt(f[0]);
      sizes2[p]++;
      assertEquals(expected, Integer.parseInt(f[1]), line + ", of " + n + " partitions");
      assertEquals(expected % 10, Integer.parseInt(f[2]), line);
      expected++;
    }
    for (int p = 0; p < n; p++) {
      assertTrue(Math.abs(sizes2[p] - 1000.0 / n) < 1, sizes2[p] + " in partition " + p);
    }
    assertEquals(1000, expected);
  }
}
