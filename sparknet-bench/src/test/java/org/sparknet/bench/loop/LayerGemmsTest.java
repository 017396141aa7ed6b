package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.bench.loop.GemmShapes.Gemm;

/**
 * The attribution of a step's GEMMs to its layers (section 5b's GEMM columns), with no Caffe: the
 * shapes are LeNet's conv2 and ip1 at batch 64 as {@link GemmShapes} reads them from the built net.
 */
class LayerGemmsTest {
  private static final int N = GemmShapes.NO_TRANS;
  private static final int T = GemmShapes.TRANS;

  private static final List<Gemm> LENET =
      List.of(
          new Gemm("conv2", "forward", N, N, 50, 64, 500, 64, 64),
          new Gemm("conv2", "backward weights", N, T, 50, 500, 64, 64, 64),
          new Gemm("conv2", "backward data", T, N, 500, 64, 50, 64, 64),
          new Gemm("ip1", "forward", N, T, 64, 500, 800, 1, 64),
          new Gemm("ip1", "backward weights", T, N, 500, 800, 64, 1, 64));

  @Test
  void sumsEachLayersProductsPerStepAndSplitsForwardFromBackward() {
    // conv2's products at 100 GFLOP/s, ip1's at 50: rates chosen so each sum is easy to check.
    Map<String, LayerGemms> byLayer =
        LayerGemms.byLayer(LENET, g -> g.layer().equals("conv2") ? 100 : 50);
    assertEquals(List.of("conv2", "ip1"), List.copyOf(byLayer.keySet()), "the net's order");

    // Each conv2 product is 2 x 50 x 64 x 500 = 3.2 MFLOP, run once per image: 64 calls a step.
    // Without the calls per step (a broken build) this gave 9.6 MFLOP and 0.096 ms.
    // Counting the weight-gradient product as forward (a broken build) gave 4.096 ms forward.
    LayerGemms conv2 = byLayer.get("conv2");
    assertEquals(3 * 3.2e6 * 64, conv2.flopsPerStep(), 1);
    assertEquals(3.2e6 * 64 / 100e9, conv2.forwardSeconds(), 1e-12);
    assertEquals(2 * 3.2e6 * 64 / 100e9, conv2.backwardSeconds(), 1e-12);

    // ip1 runs once per batch: 2 x 64 x 500 x 800 = 51.2 MFLOP each way.
    LayerGemms ip1 = byLayer.get("ip1");
    assertEquals(2 * 51.2e6, ip1.flopsPerStep(), 1);
    assertEquals(51.2e6 / 50e9, ip1.forwardSeconds(), 1e-12);
    assertEquals(ip1.forwardSeconds() + ip1.backwardSeconds(), ip1.seconds(), 1e-15);
    assertEquals(
        GemmShapes.flopsPerImage(LENET) * 64,
        conv2.flopsPerStep() + ip1.flopsPerStep(),
        1,
        "per step = per image x batch");
  }

  @Test
  void aMissingRateIsNamed() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LayerGemms.byLayer(LENET, g -> g.layer().equals("ip1") ? 0 : 100));
    assertTrue(e.getMessage().contains("ip1 forward"), e.getMessage());
  }
}
