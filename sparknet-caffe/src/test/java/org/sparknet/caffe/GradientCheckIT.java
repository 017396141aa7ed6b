package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;

/**
 * Caffe's backward pass agrees with central finite differences of the loss. The gradient is read
 * through the public API: one SGD step with base_lr 1, no momentum and no weight decay moves every
 * weight by exactly -gradient. The net is smooth (TanH, no pooling or ReLU kinks): conv 3x3 -> TanH
 * -> inner product -> softmax loss, on a fixed batch. Tolerance: |fd - g| <= 2e-3 + 5e-2 |g|
 * (float32 losses, eps 1e-2).
 */
class GradientCheckIT {
  private static final float EPS = 1e-2f;

  private static BatchFeeder fixedBatch() {
    return (Map<String, NDArray> in) -> TinyNets.quadrants(11).fill(in);
  }

  private static double loss(CaffeNet net) {
    Map<String, NDArray> out = net.forward(fixedBatch(), List.of("loss"));
    try (NDArray l = out.get("loss")) {
      return l.getFlat(0);
    }
  }

  @Test
  void backwardMatchesFiniteDifferences() {
    String solver = "base_lr: 1\nlr_policy: \"fixed\"\nmomentum: 0\nweight_decay: 0\n";
    NetDefinition d = NetDefinition.caffe(solver, TinyNets.net("tiny", "TanH"), null).withSeed(4);
    try (CaffeNet net = CaffeNet.create(d, false);
        CaffeNet probe = CaffeNet.create(d, false)) {
      WeightCollection w0 = net.getWeights();
      net.train(1, fixedBatch());
      WeightCollection grad = w0.copy().addScaled(-1f, net.getWeights()); // w0 - w1 = g
      Random rnd = new Random(3);
      int checked = 0;
      double worst = 0;
      for (String layer : w0.layerNames()) {
        for (int a = 0; a < w0.get(layer).size(); a++) {
          float[] g = grad.get(layer).get(a).data();
          for (int k = 0; k < 12; k++) {
            int i = rnd.nextInt(g.length);
            WeightCollection plus = w0.copy();
            plus.get(layer).get(a).data()[i] += EPS;
            probe.setWeights(plus);
            double lp = loss(probe);
            WeightCollection minus = w0.copy();
            minus.get(layer).get(a).data()[i] -= EPS;
            probe.setWeights(minus);
            double lm = loss(probe);
            double fd = (lp - lm) / (2 * EPS);
            double err = Math.abs(fd - g[i]);
            worst = Math.max(worst, err / (2e-3 + 5e-2 * Math.abs(g[i])));
            assertTrue(
                err <= 2e-3 + 5e-2 * Math.abs(g[i]),
                layer + "[" + a + "][" + i + "]: backward " + g[i] + ", finite difference " + fd);
            checked++;
          }
        }
      }
      System.out.printf(
          "gradient check: %d coordinates, worst error/tolerance %.3f%n", checked, worst);
    }
  }
}
