package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.testnet.GpuRecorderProvider;
import org.sparknet.testing.data.FashionMnist;
import org.sparknet.testing.spark.LocalSpark;

/**
 * Workers per GPU in local mode, without a GPU: the test lays out 2 visible GPUs ({@link
 * GpuRecorderProvider}, a pure-Java net that records the device of every net a task builds), the
 * trainer runs the device rule "gpu" with K = 2 workers per GPU, and each partition must have built
 * its net on GPU (p / 2) mod 2, in every driver mode (plain, all-reduce ring, downpour).
 *
 * <p>A broken build that ignored K (WorkerPlans not passing the config's sharing to the plan) gave
 * "plain, 4 workers, 2 per GPU ==> expected: <{0=gpu:0, 1=gpu:0, 2=gpu:1, 3=gpu:1}> but was:
 * <{0=gpu:0, 1=gpu:1, 2=gpu:0, 3=gpu:1}>", the same for downpour, and "allreduce ==> expected:
 * <{0=gpu:0, 1=gpu:0}> but was: <{0=gpu:0, 1=gpu:1}>"; one whose RingTasks acquired its worker
 * without the sharing failed only the all-reduce case; without the driver's check, 5 workers on 2×2
 * slots got past the constructor ("Expected java.lang.IllegalArgumentException to be thrown, but
 * nothing was thrown").
 */
class WorkersPerGpuIT {
  private static JavaSparkContext sc;

  @BeforeAll
  static void setUp() {
    if (SparkNetTrainerIT.train == null) {
      SparkNetTrainerIT.train = FashionMnist.load(true, 1200);
    }
    sc = LocalSpark.context();
  }

  @BeforeEach
  void twoGpus() {
    GpuRecorderProvider.visible = 2;
    GpuRecorderProvider.clear();
  }

  @AfterEach
  void noGpus() {
    GpuRecorderProvider.visible = 0;
  }

  @Test
  void plainRoundsPutTwoConsecutivePartitionsOnEachGpu() {
    assertEquals(
        sorted(0, "gpu:0", 1, "gpu:0", 2, "gpu:1", 3, "gpu:1"),
        train(Averaging.PLAIN, 4, 2),
        "plain, 4 workers, 2 per GPU");
  }

  @Test
  void theAllReduceRingPassesTheWorkersPerGpu() {
    // local[2] runs a barrier stage of at most 2 tasks: both on gpu:0 with K = 2 (K = 1: 0 and 1).
    assertEquals(sorted(0, "gpu:0", 1, "gpu:0"), train(Averaging.ALL_REDUCE, 2, 2), "allreduce");
  }

  @Test
  void asynchronousRoundsPassTheWorkersPerGpu() {
    assertEquals(
        sorted(0, "gpu:0", 1, "gpu:0", 2, "gpu:1", 3, "gpu:1"),
        train(Averaging.downpour(), 4, 2),
        "downpour, 4 workers, 2 per GPU");
  }

  @Test
  void oneWorkerPerGpuKeepsTheRoundRobin() {
    assertEquals(
        sorted(0, "gpu:0", 1, "gpu:1", 2, "gpu:0", 3, "gpu:1"),
        train(Averaging.PLAIN, 4, 0),
        "plain, 4 workers, no workers per GPU given");
  }

  @Test
  void moreWorkersThanTheGpusHoldFailBeforeAnyNetIsBuilt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new SparkNetTrainer(sc, config(Averaging.PLAIN, 5, 2).build()).close());
    assertTrue(e.getMessage().startsWith("workersPerGpu 2: 5 workers do not fit"), e.getMessage());
    assertTrue(e.getMessage().contains("at most 4"), e.getMessage());
    assertEquals(Map.of(), GpuRecorderProvider.devicesByPartition(), "nets built on executors");
  }

  /** The expected devices by partition, in partition order as the records are. */
  private static Map<Integer, String> sorted(Object... partitionsAndDevices) {
    Map<Integer, String> m = new TreeMap<>();
    for (int i = 0; i < partitionsAndDevices.length; i += 2) {
      m.put((Integer) partitionsAndDevices[i], (String) partitionsAndDevices[i + 1]);
    }
    return m;
  }

  /** Trains 2 rounds; returns the device each partition's nets were built on. */
  private static Map<Integer, String> train(Averaging avg, int workers, int perGpu) {
    try (SparkNetTrainer t = new SparkNetTrainer(sc, config(avg, workers, perGpu).build())) {
      int[] sizes = new int[workers];
      Arrays.fill(sizes, 32);
      t.setTrainingData(SparkNetTrainerIT.rdd(SparkNetTrainerIT.split(sizes)));
      t.train(2);
    }
    return GpuRecorderProvider.devicesByPartition();
  }

  private static TrainerConfig.Builder config(Averaging avg, int workers, int perGpu) {
    NetDefinition def =
        new NetDefinition(
            GpuRecorderProvider.ENGINE,
            "features=784\nclasses=10\nbatch=8\nlr=0.1",
            null,
            null,
            7L,
            "gpu");
    TrainerConfig.Builder b = SparkNetTrainerIT.config(def, 2, workers).optAveraging(avg);
    return perGpu > 0 ? b.optWorkersPerGpu(perGpu) : b;
  }
}
