package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.sparknet.caffe.internal.CaffeRuntime;

/** Needs the gpu profile (-Pgpu) and a CUDA device; excluded from the default build. */
@Tag("gpu")
class GpuIT {
  @Test
  void gpuTrainingMatchesTheCpuShapesAndLearns() {
    assumeTrue(CaffeRuntime.gpuCount() > 0, "no CUDA device visible to Caffe");
    try (CaffeNet gpu = CaffeNet.create(TinyNets.definition().withDevice("gpu:0"), false);
        CaffeNet cpu = CaffeNet.create(TinyNets.definition(), false)) {
      gpu.setWeights(cpu.getWeights());
      float first = gpu.train(5, TinyNets.quadrants(1));
      float last = gpu.train(60, TinyNets.quadrants(2));
      assertTrue(last < first, "loss went from " + first + " to " + last);
      assertEquals(cpu.getWeights().layerNames(), gpu.getWeights().layerNames());
    }
  }
}
