package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The cost model's all-reduce term (section 8b) and the GPU figures it reads from section 11. */
class RingModelTest {
  private static final double M = CostModel.TEN_GBIT; // 1 s a transfer at 10 Gbit/s

  /**
   * Each executor sends 3 (W-1)/W M, 2 (W-1) hops in sequence, and the driver receives one copy:
   * with M/B = 1 s, W = 4 gives 2.25 + 0.0003 + 1 s. A ring term written as the driver's W
   * transfers gave 5.0003 s here, and one without the copy to the driver 2.2503 s (both seen red).
   */
  @Test
  void ringRoundSendsThreeQuartersOfTheWeightsThriceAndOneCopyToTheDriver() {
    CostModel m = new CostModel(0.01, 10, 0.5, M, CostModel.TEN_GBIT);
    assertEquals(2.25 + 6 * CostModel.RING_HOP_SECONDS + 1, m.ringNetworkSeconds(4), 1e-12);
    assertEquals(1, m.ringNetworkSeconds(1), 1e-12);
    assertEquals(50 * 10 * 0.01 + 0.5 + m.ringNetworkSeconds(4), m.ringRoundSeconds(4, 50), 1e-12);
    assertEquals(4 * 5.0 / m.ringRoundSeconds(4, 50), m.ringSpeedUp(4, 50), 1e-12);
    // What goes through the driver does not grow with W: at most 3 M on each link plus one copy.
    assertTrue(m.ringNetworkSeconds(64) < 3 + 1 + 2 * 63 * CostModel.RING_HOP_SECONDS + 1e-9);
    assertTrue(m.ringSpeedUp(64, 1) > m.speedUp(64, 1), "the ring beats the driver at 64 workers");
    // A faster network shortens only the transfers.
    CostModel fast = m.withBandwidth(10 * CostModel.TEN_GBIT);
    assertEquals(0.325 + 6 * CostModel.RING_HOP_SECONDS, fast.ringNetworkSeconds(4), 1e-12);
    CostModel gpu = m.withCompute(0.001, 128);
    assertEquals(50 * 128 * 0.001 + 0.5 + 5, gpu.roundSeconds(4, 50), 1e-12);
  }

  /** Section 11's rows as the GPU check writes them; other rows are not the plain loop. */
  @Test
  void readsThePlainSolverLoopsImagesPerSecondFromSection11() {
    String md =
        "| LeNet, batch 64 | plain JavaCPP solver loop (`PlainSolverLoop`) | 32,425 | 1.000 |  |\n"
            + "|  | `CaffeNet.train` | 27,684 | 0.854 | x |\n"
            + "| AlexNet-sized (`BenchNets.alexNet`), batch 128 | plain JavaCPP solver loop"
            + " (`PlainSolverLoop`) | 4,882 | 1.000 |  |\n";
    Map<String, RingModelTable.GpuCompute> gpus = RingModelTable.gpuCompute(md);
    assertEquals(2, gpus.size());
    assertEquals(1 / 4882.0, gpus.get("AlexNet").secondsPerImage(), 1e-15);
    assertEquals(128, gpus.get("AlexNet").batch());
    assertEquals(64, gpus.get("LeNet").batch());
    assertTrue(RingModelTable.gpuCompute("no such rows").isEmpty());
  }
}
