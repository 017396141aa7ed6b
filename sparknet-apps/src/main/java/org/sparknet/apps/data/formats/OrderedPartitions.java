package org.sparknet.apps.data.formats;

import java.util.Iterator;
import java.util.List;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaRDD;
import scala.Tuple2;

/**
 * An RDD cut into a given number of partitions that keep its order: partition i holds the i-th
 * contiguous run of its elements, in order, as the other formats' partitions do (a plain {@code
 * repartition} deals elements round-robin from every parent, so training order and a {@code
 * --deterministic} run would depend on how the files were split).
 */
final class OrderedPartitions {
  private OrderedPartitions() {}

  /** {@code rdd} itself when it has {@code n} partitions already. */
  static <T> JavaRDD<T> of(JavaRDD<T> rdd, int n) {
    if (rdd.getNumPartitions() == n) {
      return rdd;
    }
    // zipWithIndex, with the partition sizes it counts kept for the total: one job counts, the
    // shuffle reads again.
    List<Long> sizes =
        rdd.mapPartitions(
                it -> {
                  long c = 0;
                  for (; it.hasNext(); it.next()) {
                    c++;
                  }
                  return List.of(c).iterator();
                })
            .collect();
    long[] starts = new long[sizes.size()];
    long total = 0;
    for (int p = 0; p < starts.length; p++) {
      starts[p] = total;
      total += sizes.get(p);
    }
    return rdd.mapPartitionsWithIndex(
            (p, it) -> {
              long[] next = {starts[p]};
              Iterator<T> in = it;
              return new Iterator<Tuple2<Long, T>>() {
                @Override
                public boolean hasNext() {
                  return in.hasNext();
                }

                @Override
                public Tuple2<Long, T> next() {
                  return new Tuple2<>(next[0]++, in.next());
                }
              };
            },
            true)
        .mapToPair(t -> t)
        .repartitionAndSortWithinPartitions(new Runs(n, total))
        .values();
  }

  /** Index i of {@code total} goes to partition {@code i * n / total}. */
  private static final class Runs extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;
    private final long total;

    Runs(int n, long total) {
      this.n = n;
      this.total = Math.max(1, total);
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (int) Math.min(n - 1, (Long) key * n / total);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Runs r && r.n == n && r.total == total;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(total) * 31 + n;
    }
  }
}
