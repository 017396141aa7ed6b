package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The executor memory overhead SparkNet sets or checks on YARN and Kubernetes. Broken build: with
 * the user's value read in bytes instead of MiB (300m as 314,572,800, compared with the need in
 * MiB) the too-small case failed, "Expected java.lang.IllegalArgumentException to be thrown, but
 * nothing was thrown".
 */
class MemoryOverheadTest {
  /**
   * About LeNet's estimate: NetMemory gives 23,143,616 bytes for lenet_train_test.prototxt (train
   * batch 64, test batch 100), as YarnIT's refusal prints it; docs/memory.md measured 22-25 MB RSS.
   */
  private static final long LENET = 23_000_000;

  @Test
  void onlyYarnAndKubernetesEnforceIt() {
    assertTrue(MemoryOverhead.enforced("yarn"));
    assertTrue(MemoryOverhead.enforced("k8s://https://10.0.0.1:6443"));
    assertFalse(MemoryOverhead.enforced("local[2]"));
    assertFalse(MemoryOverhead.enforced("spark://127.0.0.1:7077"));
    assertFalse(MemoryOverhead.enforced(null));
  }

  @Test
  void needIsTheBasePlusTheNetsAndAQuarter() {
    MemoryOverhead m = MemoryOverhead.of(LENET, 2);
    // 192 + ceil(2 * 23 MB * 1.25 / MiB) = 192 + 55
    assertEquals(247, m.neededMib());
    assertEquals(Optional.of("512m"), m.resolve(null), "never less than the recommended 512m");
    MemoryOverhead big = MemoryOverhead.of(1L << 30, 1);
    assertEquals(192 + 1280, big.neededMib());
    assertEquals(Optional.of("1472m"), big.resolve(null));
  }

  @Test
  void aLargeEnoughUserSettingIsKept() {
    MemoryOverhead m = MemoryOverhead.of(LENET, 2);
    assertEquals(Optional.empty(), m.resolve("247m"));
    assertEquals(Optional.empty(), m.resolve("1g"));
    assertEquals(Optional.empty(), m.resolve("300"), "no unit is MiB, as Spark reads it");
  }

  @Test
  void aTooSmallUserSettingIsRefusedNamingTheSettingAndBothSizes() {
    MemoryOverhead m = MemoryOverhead.of(10_000_000_000L, 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> m.resolve("300m"));
    String msg = e.getMessage();
    assertTrue(msg.startsWith("spark.executor.memoryOverhead=300m (300 MiB) is too small"), msg);
    assertTrue(msg.contains("needs 12113 MiB"), msg);
    assertTrue(msg.contains("spark.executor.memoryOverhead=12113m or more"), msg);
    assertThrows(IllegalArgumentException.class, () -> m.resolve("lots"));
  }
}
