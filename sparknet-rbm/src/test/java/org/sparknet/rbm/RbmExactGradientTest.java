package org.sparknet.rbm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.sparknet.api.Net;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;
import org.sparknet.rbm.internal.Rbm;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * The CD-k statistics of the engine against an exact computation for a tiny RBM (4 visible, 3
 * hidden units: all 2^7 joint states enumerated in double).
 *
 * <ul>
 *   <li>The data term {@code <v h>_data} is deterministic: it must equal the exact one to float
 *       precision ({@link Tolerance#FLOAT}).
 *   <li>The model term of CD-k with k = 1000, averaged over {@value #CHAINS} chains, must approach
 *       the exact {@code <v h>_model} within {@value #MODEL_ATOL} absolute, in every entry of W and
 *       both biases. Each entry is a mean of {@value #CHAINS} values in [0, 1], so its Monte Carlo
 *       standard error is at most 0.5 / sqrt(20000) = 0.0035: the tolerance is over 5.6 standard
 *       errors, and 1000 Gibbs steps mix this RBM (weights ~ N(0, 1)) far past its burn-in.
 *   <li>Training by CD-1 through the Net SPI on a fixed tiny dataset raises its exact mean
 *       log-likelihood by at least {@value #LL_GAIN} nats per example.
 * </ul>
 */
class RbmExactGradientTest {
  static final int CHAINS = 20_000;
  static final double MODEL_ATOL = 0.02;
  static final double LL_GAIN = 0.5;

  static final float[][] DATA = {
    {1, 1, 0, 0}, {1, 1, 1, 0}, {0, 0, 1, 1}, {0, 1, 1, 1}, {1, 0, 0, 0}, {1, 1, 0, 1},
  };

  private static float[] gaussian(SplittableRandom rnd, int n, double std) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (std * rnd.nextGaussian());
    }
    return a;
  }

  private static float[] toFloat(double[] a) {
    float[] f = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      f[i] = (float) a[i];
    }
    return f;
  }

  private static float[] rows(float[][] data, int copies) {
    int v = data[0].length;
    float[] out = new float[copies * data.length * v];
    for (int c = 0, p = 0; c < copies; c++) {
      for (float[] row : data) {
        System.arraycopy(row, 0, out, p, v);
        p += v;
      }
    }
    return out;
  }

  private static double maxAbsDiff(double[] exact, float[] actual) {
    double m = 0;
    for (int i = 0; i < exact.length; i++) {
      m = Math.max(m, Math.abs(exact[i] - actual[i]));
    }
    return m;
  }

  @Test
  void dataTermIsExactAndCdWithLargeKApproachesTheExactModelTerm() {
    SplittableRandom init = new SplittableRandom(7);
    float[] w = gaussian(init, 4 * 3, 1.0);
    float[] bv = gaussian(init, 4, 0.5);
    float[] bh = gaussian(init, 3, 0.5);
    ExactRbm exact = new ExactRbm(w, bv, bh);
    ExactRbm.Terms data = exact.dataTerm(DATA);
    ExactRbm.Terms model = exact.modelTerm();

    try (Rbm rbm = new Rbm(4, 3, false);
        Rbm.Statistics stats = new Rbm.Statistics(4, 3);
        NDArray small = NDArray.create(rows(DATA, 1), DATA.length, 4);
        NDArray many =
            NDArray.create(
                rows(DATA, CHAINS / DATA.length), CHAINS / DATA.length * DATA.length, 4)) {
      rbm.weights().copyFrom(w);
      rbm.visibleBias().copyFrom(bv);
      rbm.hiddenBias().copyFrom(bh);
      SplittableRandom rnd = new SplittableRandom(1);

      rbm.contrastiveDivergence(small, 1, rnd, stats);
      NDAssert.assertAllClose(toFloat(data.w()), stats.dataW.toArray(), Tolerance.FLOAT);
      NDAssert.assertAllClose(toFloat(data.visible()), stats.dataVisible, Tolerance.FLOAT);
      NDAssert.assertAllClose(toFloat(data.hidden()), stats.dataHidden, Tolerance.FLOAT);

      rbm.contrastiveDivergence(many, 1, rnd, stats);
      double cd1 = maxAbsDiff(model.w(), stats.modelW.toArray());
      long t0 = System.nanoTime();
      rbm.contrastiveDivergence(many, 1000, rnd, stats);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      double cd1000 = maxAbsDiff(model.w(), stats.modelW.toArray());
      System.out.printf(
          "RBM 4x3, %d chains: max |CD-k - exact| of <v h>_model: k=1 %.4f, k=1000 %.4f"
              + " (%d ms); visible %.4f, hidden %.4f%n",
          many.shape().dim(0),
          cd1,
          cd1000,
          ms,
          maxAbsDiff(model.visible(), stats.modelVisible.toArray()),
          maxAbsDiff(model.hidden(), stats.modelHidden.toArray()));
      Tolerance mc = new Tolerance(0, MODEL_ATOL);
      NDAssert.assertAllClose(toFloat(model.w()), stats.modelW.toArray(), mc);
      NDAssert.assertAllClose(toFloat(model.visible()), stats.modelVisible, mc);
      NDAssert.assertAllClose(toFloat(model.hidden()), stats.modelHidden, mc);
      // The data term does not depend on k.
      NDAssert.assertAllClose(toFloat(data.w()), stats.dataW.toArray(), Tolerance.LOOSE);
    }
  }

  @Test
  void trainingRaisesTheExactLogLikelihood() {
    float[][] data = {
      {1, 1, 1, 0, 0, 0}, {1, 1, 0, 0, 0, 0}, {1, 1, 1, 0, 0, 1}, {0, 1, 1, 0, 0, 0},
      {0, 0, 0, 1, 1, 1}, {0, 0, 0, 1, 1, 0}, {1, 0, 0, 1, 1, 1}, {0, 0, 0, 0, 1, 1},
    };
    RbmConfig cfg = RbmConfig.of(6, 4, data.length, 0.1f).withSolver(0.1f, 0.5f, 0f).withSeed(3);
    float[] batch = rows(data, 1);
    try (Net net = NetProvider.build(cfg.definition(5))) {
      double before = logLikelihood(net.getWeights(), data);
      double[] after = new double[4];
      for (int i = 0; i < after.length; i++) {
        net.train(500, in -> in.get(RbmNet.DATA).copyFrom(batch));
        after[i] = logLikelihood(net.getWeights(), data);
      }
      System.out.printf(
          "RBM 6x4, CD-1 on 8 patterns: exact mean log-likelihood %.4f -> %.4f / %.4f / %.4f /"
              + " %.4f after 500 / 1000 / 1500 / 2000 steps (test loss %.4f)%n",
          before,
          after[0],
          after[1],
          after[2],
          after[3],
          net.test(1, in -> in.get(RbmNet.DATA).copyFrom(batch)).get("loss"));
      assertTrue(
          after[3] > before + LL_GAIN,
          "log-likelihood " + before + " -> " + after[3] + " did not rise by " + LL_GAIN);
      assertTrue(after[0] > before, "log-likelihood fell in the first 500 steps");
    }
  }

  private static double logLikelihood(WeightCollection weights, float[][] data) {
    List<WeightCollection.Tensor> t = weights.get(RbmNet.LAYER);
    return new ExactRbm(t.get(0).data(), t.get(1).data(), t.get(2).data()).meanLogLikelihood(data);
  }
}
