package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.Example;
import org.sparknet.api.internal.worker.RingSum;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * {@link Averaging#ALL_REDUCE} in local mode ({@code local[2]}, a barrier stage of two tasks in one
 * JVM, talking over loopback sockets), with the pure-Java softmax net. The cluster and Caffe runs
 * are in sparknet-apps ({@code AllReduceClusterIT}).
 */
class AllReduceIT {
  static JavaSparkContext sc;

  @BeforeAll
  static void setUp() {
    SparkNetTrainerIT.train = FashionMnist.load(true, 1200);
    sc = LocalSpark.context();
  }

  /**
   * With two workers each value of the sum is one double addition, which commutes, so the ring's
   * sum and the driver's tree sum ({@code treeAggregate}, the same {@code combineSum}) are the same
   * bits, round after round. A broken build (each task's combined chunk written one chunk off) gave
   * "array contents differ at index [0], expected: <0.009884743> but was: <0.0>".
   */
  @Test
  void twoWorkersGiveTheDriverSumBitForBit() {
    for (Compression c : new Compression[] {Compression.NONE, Compression.BF16}) {
      float[] driver = run(Averaging.PLAIN, c, 0);
      float[] ring = run(Averaging.ALL_REDUCE, c, Integer.MAX_VALUE);
      assertArrayEquals(driver, ring, "all-reduce vs the driver's tree sum, " + c);
    }
    assertEquals(0, RingSum.openSockets(), "ring sockets left open");
    assertEquals(0, ringThreads(), "ring threads left");
  }

  /**
   * A run cancelled in the middle (its jobs cancelled while the tasks train or sum, as when the
   * driver gives up on a stage): every ring socket and sender thread is gone once the killed tasks
   * have ended. A broken build (the ring's close leaving its two connections open) failed this test
   * and the one above: "expected: <0> but was: <44>" ring sockets.
   */
  @Test
  void aCancelledRunLeavesNoSocketOrThread() throws Exception {
    NetDefinition def = SparkNetTrainerIT.softmax(8, 0.1, 0);
    Thread canceller =
        new Thread(
            () -> {
              try {
                Thread.sleep(2500);
              } catch (InterruptedException e) {
                return;
              }
              sc.cancelAllJobs();
            });
    try (SparkNetTrainer t =
        new SparkNetTrainer(
            sc, SparkNetTrainerIT.config(def, 200, 2).optAveraging(Averaging.ALL_REDUCE).build())) {
      t.setTrainingData(SparkNetTrainerIT.rdd(SparkNetTrainerIT.split(96, 64)));
      canceller.start();
      assertThrows(RuntimeException.class, () -> t.train(100));
    } finally {
      canceller.join();
    }
    long deadline = System.nanoTime() + 20_000_000_000L;
    while ((RingSum.openSockets() > 0 || ringThreads() > 0) && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    assertEquals(0, RingSum.openSockets(), "ring sockets left open after a cancelled run");
    assertEquals(0, ringThreads(), "ring threads left after a cancelled run");
  }

  /**
   * Timed rounds: each worker runs as many steps as fit in its time and weighs in by the examples
   * it fed, which the ring sums in each chunk's header; every round counts both partitions'
   * examples, and the weights move. A broken build (the driver not counting the reports of an
   * all-reduce round) gave "round 1 fed 0". (A ring counting only partition 0's weight in the
   * headers is caught by the bit-for-bit test: "expected: <0.009884743> but was: <0.15815589>".)
   */
  @Test
  void timedRoundsWithFp16Offsets() {
    NetDefinition def = SparkNetTrainerIT.softmax(8, 0.1, 0);
    try (SparkNetTrainer t =
        new SparkNetTrainer(
            sc,
            SparkNetTrainerIT.config(def, 1, 2)
                .optTauSeconds(0.2)
                .optCompress(Compression.FP16)
                .optAveraging(Averaging.ALL_REDUCE)
                .build())) {
      t.setTrainingData(SparkNetTrainerIT.rdd(SparkNetTrainerIT.split(96, 64)));
      WeightCollection before = t.getWeights();
      for (RoundMetrics m : t.train(2)) {
        assertTrue(m.examples() >= 2 * 8, "round " + m.round() + " fed " + m.examples());
      }
      float[] a = org.sparknet.api.internal.wire.WeightLayout.of(before).flatten(before);
      WeightCollection after = t.getWeights();
      float[] b = org.sparknet.api.internal.wire.WeightLayout.of(after).flatten(after);
      assertTrue(!java.util.Arrays.equals(a, b), "the weights did not move");
    }
  }

  /**
   * Three partitions in two slots: Spark could never start the barrier stage; refused first. A
   * broken build (no slot check) threw nothing here.
   */
  @Test
  void fewerSlotsThanWorkersIsRefusedBeforeTraining() {
    NetDefinition def = SparkNetTrainerIT.softmax(8, 0.1, 0);
    try (SparkNetTrainer t =
        new SparkNetTrainer(
            sc, SparkNetTrainerIT.config(def, 2, 3).optAveraging(Averaging.ALL_REDUCE).build())) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> t.setTrainingData(SparkNetTrainerIT.rdd(SparkNetTrainerIT.split(64, 64, 64))));
      assertTrue(e.getMessage().contains("2 task slots"), e.getMessage());
      assertTrue(e.getMessage().contains("--averaging allreduce"), e.getMessage());
    }
  }

  private static float[] run(Averaging avg, Compression c, int treeAbove) {
    NetDefinition def = SparkNetTrainerIT.softmax(8, 0.1, 0.9);
    List<List<Example>> parts = SparkNetTrainerIT.split(96, 64);
    try (SparkNetTrainer t =
        new SparkNetTrainer(
            sc,
            SparkNetTrainerIT.config(def, 3, 2)
                .optAveraging(avg)
                .optCompress(c)
                .optTreeAggregateAbove(treeAbove)
                .build())) {
      t.setTrainingData(SparkNetTrainerIT.rdd(parts));
      t.train(4);
      WeightCollection w = t.getWeights();
      return org.sparknet.api.internal.wire.WeightLayout.of(w).flatten(w);
    }
  }

  static long ringThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith(RingSum.THREAD_PREFIX))
        .count();
  }
}
