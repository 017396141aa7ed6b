package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.data.Example;
import org.sparknet.bench.loop.GemmShapes.Gemm;

/**
 * The arithmetic of the suite's sections, with no Spark and no Caffe: the cost model's formula,
 * GEMM FLOP counting, the image resizing and the new options.
 */
class SuiteModelTest {

  @Test
  void costModelWithoutCommunicationScalesLinearlyAndCommunicationCostsWhatTheFormulaSays() {
    CostModel free = new CostModel(0.01, 64, 0, 0, CostModel.TEN_GBIT);
    for (int w : new int[] {1, 2, 8, 64}) {
      assertEquals(w, free.speedUp(w, 50), 1e-12);
    }
    // M = 1.25 GB over 1.25 GB/s: 1 s per transfer; W = 4 collects 4 results: 5 s a round more.
    CostModel m = new CostModel(0.01, 10, 0.5, CostModel.TEN_GBIT, CostModel.TEN_GBIT);
    assertEquals(4, CostModel.aggregateTransfers(4));
    assertEquals(8, CostModel.aggregateTransfers(16)); // min(16, 2 * 4)
    assertEquals(16, CostModel.aggregateTransfers(64)); // the depth-2 tree
    assertEquals(50 * 10 * 0.01 + 0.5 + 5, m.roundSeconds(4, 50), 1e-12);
    assertEquals(4 * 5.0 / 10.5, m.speedUp(4, 50), 1e-12);
    assertTrue(m.speedUp(8, 50) > m.speedUp(8, 10), "a longer round amortises communication");
    // the inverse: the compute time of a round that gives a wanted speed-up
    double round = m.computeSecondsForSpeedUp(10, 4.4);
    CostModel fitted =
        new CostModel(round / (50 * 10), 10, 0.5, CostModel.TEN_GBIT, CostModel.TEN_GBIT);
    assertEquals(4.4, fitted.speedUp(10, 50), 1e-9);
    assertEquals(Double.POSITIVE_INFINITY, m.computeSecondsForSpeedUp(10, 10));
    assertThrows(IllegalArgumentException.class, () -> new CostModel(0, 1, 0, 0, 1));
  }

  /**
   * With a serialisation rate S, each of a round's transfers costs M/B + M/S (the cluster's term
   * that local mode leaves out); without S the model is section 8's. A model that dropped the M/S
   * term gave 5 s of transfers instead of 7.5 s here (seen red).
   */
  @Test
  void costModelWithSerialisationAddsItToEveryTransfer() {
    // M = 1.25 GB, B = 1.25 GB/s, S = 2.5 GB/s: 1.5 s per transfer; W = 4: 5 transfers.
    CostModel m =
        new CostModel(
            0.01, 10, 0.5, CostModel.TEN_GBIT, CostModel.TEN_GBIT, 2 * CostModel.TEN_GBIT);
    assertEquals(5 * 1.5, m.networkSeconds(4), 1e-12);
    assertEquals(50 * 10 * 0.01 + 0.5 + 7.5, m.roundSeconds(4, 50), 1e-12);
    CostModel without = new CostModel(0.01, 10, 0.5, CostModel.TEN_GBIT, CostModel.TEN_GBIT);
    assertEquals(5.0, without.networkSeconds(4), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> new CostModel(0.01, 1, 0, 0, 1, 0));
  }

  @Test
  void gemmFlopsPerImageCountPerImageConvolutionsAndPerBatchInnerProducts() {
    // LeNet conv2 forward: 50 x 64 x 500 once per image of a batch of 64
    Gemm conv = new Gemm("conv2", "forward", 111, 111, 50, 64, 500, 64, 64);
    assertEquals(2.0 * 50 * 64 * 500, conv.flopsPerImage());
    // LeNet ip1 forward: 64 x 500 x 800 once per batch of 64
    Gemm ip = new Gemm("ip1", "forward", 111, 112, 64, 500, 800, 1, 64);
    assertEquals(2.0 * 500 * 800, ip.flopsPerImage());
    assertEquals(
        conv.flopsPerImage() + ip.flopsPerImage(), GemmShapes.flopsPerImage(List.of(conv, ip)));
  }

  @Test
  void upscaleResizesByNearestNeighbourAndReplicatesChannels() {
    float[] img = new float[28 * 28];
    for (int i = 0; i < img.length; i++) {
      img[i] = i;
    }
    Example e = BenchNets.upscale(new Example(img, 7), 3, 32);
    assertEquals(3 * 32 * 32, e.features().length);
    assertEquals(7, e.label());
    assertEquals(0, e.features()[0]);
    assertEquals(27 * 28 + 27, e.features()[32 * 32 - 1]); // bottom-right pixel
    assertEquals(e.features()[100], e.features()[2 * 32 * 32 + 100]);
    assertThrows(
        IllegalArgumentException.class,
        () -> BenchNets.upscale(new Example(new float[5], 0), 1, 8));
  }

  @Test
  void newSectionsParseAndSizeTheirRuns() {
    LoopOptions full = LoopOptions.parse("--sections", "roofline,raw,split,model,tta");
    assertTrue(full.runs("roofline") && full.runs("model"));
    assertFalse(full.runs("throughput"));
    assertEquals(List.of(1, 10, 50), full.splitTaus("AlexNet (CaffeNet)"));
    assertTrue(full.splitRounds("AlexNet (CaffeNet)", 50) < full.splitRounds("LeNet", 50));
    LoopOptions quick = LoopOptions.parse("--quick");
    assertEquals(List.of(1), quick.splitTaus("AlexNet (CaffeNet)"));
    assertTrue(quick.alexNetImages() >= quick.alexNetBatch());
    assertEquals(List.of(10, 50, 200), full.ttaTaus());
    assertEquals(300, full.ttaSeconds(), "the target is accuracy within 5 minutes");
    assertTrue(quick.ttaSeconds() < 30, "a quick run stays a smoke run");
  }
}
