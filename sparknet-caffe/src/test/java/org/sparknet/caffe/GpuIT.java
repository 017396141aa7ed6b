package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.caffe.FloatBlob;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.caffe.internal.CaffeRuntime;

/**
 * Caffe on a GPU against Caffe on the CPU. Needs a CUDA device and the GPU natives: run {@code mvn
 * -Pgpu verify -Dgroups=gpu} on a machine with a GPU and CUDA 11.8, 12 or 13 (bench/gpu-check runs
 * it from the GPU jar). Without a GPU every test is skipped (assumption), saying what is missing;
 * the default build excludes the tag.
 */
@Tag("gpu")
class GpuIT {
  private static final int STEPS = 50;

  @BeforeEach
  void needsAGpu() {
    assumeTrue(CaffeRuntime.gpuCount() > 0, () -> CaffeRuntime.gpuSupport().problem());
  }

  /**
   * 50 LeNet steps on the GPU and on the CPU from the same weights and the same batches: the first
   * step's loss within 1e-4 relative (one pass from identical weights: only the order of the sums
   * differs), every step's within 1e-2 (SGD carries those differences from step to step and they
   * grow; BENCHMARKS section 11 gives what a GPU run measured), and test accuracy on 1,000 held-out
   * digits within 0.5 point.
   */
  @Test
  void fiftyLenetStepsOnTheGpuMatchTheCpu() {
    MnistDigits all = MnistDigits.load(42);
    MnistDigits train = all.range(0, 9_000);
    MnistDigits test = all.range(9_000, 10_000);
    NetDefinition lenet = Zoo.lenet().withSeed(7);
    try (CaffeNet cpu = CaffeNet.create(lenet.withDevice("cpu"));
        CaffeNet gpu = CaffeNet.create(lenet.withDevice("gpu:0"))) {
      gpu.setWeights(cpu.getWeights());
      DigitFeeder cpuBatches = new DigitFeeder(train, 1, true);
      DigitFeeder gpuBatches = new DigitFeeder(train, 1, true);
      for (int step = 1; step <= STEPS; step++) {
        float c = cpu.train(1, cpuBatches);
        float g = gpu.train(1, gpuBatches);
        assertEquals(
            c,
            g,
            (step == 1 ? 1e-4 : 1e-2) * Math.abs(c),
            "loss of step " + step + ": CPU " + c + ", GPU " + g);
      }
      float cpuAccuracy = cpu.test(10, new DigitFeeder(test, 0, false)).get("accuracy");
      float gpuAccuracy = gpu.test(10, new DigitFeeder(test, 0, false)).get("accuracy");
      assertEquals(cpuAccuracy, gpuAccuracy, 0.005, "test accuracy, CPU against GPU");
      assertEquals(STEPS, gpu.iteration());
    }
  }

  /**
   * A net larger than the GPU's free memory is refused with its name, batch size and bytes, and the
   * JVM lives on: the test first takes all but 1.5 GB of the device in Caffe blobs of its own, then
   * asks for LeNet at batch 16,384 (about 3.9 GB).
   */
  @Test
  void aNetThatCannotFitIsAnErrorNamingItsBatchAndBytes() {
    long keep = 3L << 29;
    long free = CaffeRuntime.freeGpuBytes(0);
    assumeTrue(free > keep, "CUDA reports " + free + " bytes free on gpu:0");
    List<FloatBlob> hog = new ArrayList<>();
    try {
      CaffeRuntime.useDevice(0);
      for (long left = (free - keep) / Float.BYTES; left > 0; ) {
        int floats = (int) Math.min(left, 1 << 30);
        FloatBlob b = new FloatBlob(floats, 1, 1, 1);
        hog.add(b);
        b.mutable_gpu_data();
        left -= floats;
      }
      NetDefinition big =
          NetProvider.forEngine("caffe").withBatchSize(Zoo.lenet().withDevice("gpu:0"), 16_384);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> CaffeNet.create(big).close());
      assertTrue(
          e.getMessage().startsWith("GPU out of memory: net 'LeNet' at batch size 16384 asks for"),
          e.getMessage());
    } finally {
      hog.forEach(FloatBlob::close);
    }
  }

  @Test
  void aDeviceThatDoesNotExistIsNamed() {
    int n = CaffeRuntime.gpuCount();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CaffeNet.create(Zoo.lenet().withDevice("gpu:" + n)).close());
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }
}
