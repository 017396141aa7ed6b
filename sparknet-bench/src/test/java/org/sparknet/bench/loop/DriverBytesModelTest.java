package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The cost model's bytes through the driver in a round of the driver's average (section 22). */
class DriverBytesModelTest {
  private static final double TINY = 318_040; // section 22's net: one torrent block

  /**
   * A broadcast of one block leaves the driver once per executor: section 22 measured 4.9 MB at W =
   * 8 for the 318 KB net, (8 + a(8)) M = 14 M. The model that sent every broadcast once gave 7 M
   * here (seen red).
   */
  @Test
  void aOneBlockBroadcastLeavesTheDriverOncePerExecutor() {
    CostModel m = new CostModel(0.01, 8, 0, TINY, CostModel.TEN_GBIT);
    assertEquals((2 + 2) * TINY, m.driverBytes(2), 1e-6);
    assertEquals((8 + 6) * TINY, m.driverBytes(8), 1e-6);
    assertEquals((32 + 12) * TINY, m.driverBytes(32), 1e-6);
  }

  /** With as many blocks as executors or more, the executors share them: M leaves once. */
  @Test
  void aBroadcastOfManyBlocksLeavesTheDriverAboutOnce() {
    double alexNet = 61e6 * Float.BYTES; // 59 blocks
    CostModel m = new CostModel(0.01, 8, 0, alexNet, CostModel.TEN_GBIT);
    assertEquals((1 + 3) * alexNet, m.driverBytes(3), 1e-3);
    double threeBlocks = 3 * CostModel.BROADCAST_BLOCK_BYTES;
    assertEquals(2, CostModel.broadcastCopiesFromDriver(6, threeBlocks), 1e-12);
    assertEquals(1, CostModel.broadcastCopiesFromDriver(2, threeBlocks), 1e-12);
  }
}
