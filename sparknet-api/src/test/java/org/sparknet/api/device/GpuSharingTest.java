package org.sparknet.api.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * K workers per GPU where Spark assigns none: partition p on GPU (p / K) mod N.
 *
 * <p>A broken build that ignored K ({@code firstGpu} returning {@code p mod N}) gave "K = 2 on 2
 * GPUs ==> expected: <[gpu:0, gpu:0, gpu:1, gpu:1]> but was: <[gpu:0, gpu:1, gpu:0, gpu:1]>"; one
 * without the limit gave "Expected java.lang.IllegalArgumentException to be thrown, but nothing was
 * thrown" for partition 4.
 */
class GpuSharingTest {
  private static final String[] NONE = {};

  @Test
  void consecutivePartitionsShareAGpu() {
    assertEquals(
        List.of("gpu:0", "gpu:0", "gpu:1", "gpu:1"),
        devices(GpuSharing.of(2), 4, 2),
        "K = 2 on 2 GPUs");
    assertEquals(
        List.of("gpu:0", "gpu:0", "gpu:0", "gpu:0", "gpu:1", "gpu:1", "gpu:1", "gpu:1"),
        devices(GpuSharing.of(4), 8, 2),
        "K = 4 on 2 GPUs");
    assertEquals(
        List.of("gpu:0", "gpu:0", "gpu:0"), devices(GpuSharing.of(4), 3, 1), "K = 4, 1 GPU");
    assertEquals(
        List.of("gpu:0", "gpu:1", "gpu:2", "gpu:0"), devices(GpuSharing.DEFAULT, 4, 3), "default");
  }

  @Test
  void aGivenKLimitsTheWorkersToKTimesTheGpus() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TaskDevices.assign("gpu", 4, 1, GpuSharing.of(2), NONE, 2));
    assertTrue(
        e.getMessage().startsWith("5 workers do not fit 2 per GPU on 2 visible GPU(s): at most 4"),
        e.getMessage());
    assertEquals(6, GpuSharing.of(3).capacity(1, 2));
    GpuSharing.of(2).checkFits(4, 1, 2, "--workers-per-gpu 2");
    IllegalArgumentException fits =
        assertThrows(
            IllegalArgumentException.class,
            () -> GpuSharing.of(2).checkFits(5, 1, 2, "--workers-per-gpu 2"));
    assertTrue(fits.getMessage().startsWith("--workers-per-gpu 2: 5 workers"), fits.getMessage());
    GpuSharing.DEFAULT.checkFits(9, 1, 2, "never named"); // not given: wraps round, as before
  }

  @Test
  void groupsTakeConsecutiveGpusPerSlot() {
    // Groups of 2 solvers on 4 GPUs, 2 groups per pair of GPUs: p0, p1 on 0-1; p2, p3 on 2-3.
    GpuSharing k2 = GpuSharing.of(2);
    assertEquals(List.of("gpu:0", "gpu:1"), TaskDevices.assign("gpu", 1, 2, k2, NONE, 4));
    assertEquals(List.of("gpu:2", "gpu:3"), TaskDevices.assign("gpu", 2, 2, k2, NONE, 4));
    assertEquals(4, k2.capacity(2, 4));
    assertThrows(
        IllegalArgumentException.class, () -> TaskDevices.assign("gpu", 4, 2, k2, NONE, 4));
  }

  @Test
  void sparksAssignmentAndConcreteDevicesIgnoreK() {
    // spark.task.resource.gpu.amount 0.5: two tasks hold address 3; each builds its net there.
    String[] shared = {"3"};
    assertEquals(List.of("gpu:3"), TaskDevices.assign("gpu", 0, 1, GpuSharing.of(2), shared, 8));
    assertEquals(List.of("gpu:3"), TaskDevices.assign("gpu", 1, 1, GpuSharing.of(2), shared, 8));
    assertEquals(List.of("gpu:1"), TaskDevices.assign("gpu:1", 7, 1, GpuSharing.of(2), NONE, 0));
  }

  @Test
  void kBelowOneIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> GpuSharing.of(0));
    assertTrue(e.getMessage().contains("must be >= 1 but was 0"), e.getMessage());
  }

  private static List<String> devices(GpuSharing s, int partitions, int visible) {
    List<String> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      out.addAll(TaskDevices.assign("gpu", p, 1, s, NONE, visible));
    }
    return out;
  }
}
