package org.sparknet.bench.loop;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.sparknet.bench.loop.GemmShapes.Gemm;

/**
 * A layer's share of a training step's matrix products: its GEMM FLOPs per step and the time those
 * products take at given sgemm rates, so that the time the layer really takes can be set against
 * it.
 *
 * @param layer the layer's name
 * @param flopsPerStep GEMM FLOPs of one step (forward and backward, every image)
 * @param forwardSeconds the forward products' time per step at the given rates
 * @param backwardSeconds the backward products' (weights and data) time per step
 */
record LayerGemms(
    String layer, double flopsPerStep, double forwardSeconds, double backwardSeconds) {

  double seconds() {
    return forwardSeconds + backwardSeconds;
  }

  /**
   * The products of {@code gemms} summed by layer, in their order: FLOPs per step are each
   * product's 2MNK times its calls per step, and its time those FLOPs over {@code gflops} of it
   * (GFLOP/s, e.g. {@link Sgemm#gflops} at 1 thread).
   */
  static Map<String, LayerGemms> byLayer(List<Gemm> gemms, ToDoubleFunction<Gemm> gflops) {
    Map<String, LayerGemms> out = new LinkedHashMap<>();
    for (Gemm g : gemms) {
      double rate = gflops.applyAsDouble(g);
      if (!(rate > 0)) {
        throw new IllegalArgumentException(
            "GEMM " + g.layer() + " " + g.pass() + " has no positive rate but " + rate);
      }
      double flops = g.flops() * g.callsPerStep();
      double seconds = flops / (rate * 1e9);
      boolean forward = g.pass().equals("forward");
      LayerGemms one =
          new LayerGemms(g.layer(), flops, forward ? seconds : 0, forward ? 0 : seconds);
      out.merge(g.layer(), one, LayerGemms::plus);
    }
    return out;
  }

  private LayerGemms plus(LayerGemms o) {
    return new LayerGemms(
        layer,
        flopsPerStep + o.flopsPerStep,
        forwardSeconds + o.forwardSeconds,
        backwardSeconds + o.backwardSeconds);
  }
}
