package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * A local run's nets against the machine's memory, with the sizes laid out here: the need is
 * MemoryOverhead's (192 MiB and the nets with a quarter more), the room the machine less the heap.
 */
class LocalNetMemoryTest {
  private static final long MIB = 1L << 20;

  @Test
  void netsThatFitBesideTheHeapPass() {
    // 100 nets of 8 MiB: 192 + 1,000 MiB, on 16 GiB with a 6 GiB heap.
    assertDoesNotThrow(() -> LocalNetMemory.checkFits(8 * MIB, 100, 1, 16_384 * MIB, 6_144 * MIB));
  }

  /**
   * 5,000 nets of 8 MiB need 50,192 MiB; 10,240 MiB of room hold (10,240 - 192) / 10 = 1,004
   * workers.
   */
  @Test
  void tooManyNetsNameWorkersTheNeedAndTheMost() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocalNetMemory.checkFits(8 * MIB, 5_000, 1, 16_384 * MIB, 6_144 * MIB));
    assertEquals(
        "--workers 5000: a local run keeps every worker's net in this JVM, outside its heap:"
            + " 5,000 net(s) of 8,388,608 native bytes need about 50,192 MiB with Caffe's"
            + " libraries, and this machine has 16,384 MiB of memory, 6,144 MiB of it for the"
            + " heap; use at most 1004 workers here, or a cluster",
        e.getMessage());
  }

  @Test
  void aGroupOfSolversCountsEachNet() {
    // 300 workers of 4 solvers: 1,200 nets of 8 MiB = 192 + 12,000 MiB > 10,240.
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LocalNetMemory.checkFits(8 * MIB, 300, 4, 16_384 * MIB, 6_144 * MIB));
    assertEquals(true, e.getMessage().contains("1,200 net(s)"), e.getMessage());
    assertEquals(true, e.getMessage().contains("use at most 251 workers"), e.getMessage());
  }
}
