package org.sparknet.apps.autoencoder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;

/** Unrolling RBM weights into the auto-encoder, its net text, and PCA's eigenvectors. */
class AutoEncoderNetTest {

  private static WeightCollection rbm(int v, int h, float offset) {
    float[] w = new float[v * h];
    for (int i = 0; i < w.length; i++) {
      w[i] = offset + i; // each element its flat index: a transpose error shows at once
    }
    float[] bv = new float[v];
    float[] bh = new float[h];
    for (int i = 0; i < v; i++) {
      bv[i] = -offset - i;
    }
    for (int j = 0; j < h; j++) {
      bh[j] = 1000 + offset + j;
    }
    return new WeightCollection()
        .put(
            "rbm",
            List.of(
                new WeightCollection.Tensor(Shape.of(v, h), w),
                new WeightCollection.Tensor(Shape.of(v), bv),
                new WeightCollection.Tensor(Shape.of(h), bh)));
  }

  @Test
  void unrollTransposesTheEncoderAndMirrorsTheDecoder() {
    WeightCollection ae = AutoEncoderNet.unroll(List.of(rbm(4, 3, 0), rbm(3, 2, 100)));
    assertEquals(List.of("enc1", "enc2", "dec2", "dec1"), ae.layerNames());
    WeightCollection.Tensor enc1 = ae.get("enc1").get(0);
    assertEquals(Shape.of(3, 4), enc1.shape());
    for (int r = 0; r < 4; r++) {
      for (int c = 0; c < 3; c++) {
        assertEquals(r * 3 + c, enc1.data()[c * 4 + r]); // enc1[c][r] = W[r][c]
      }
    }
    assertEquals(1000f, ae.get("enc1").get(1).data()[0]); // hidden bias
    assertEquals(Shape.of(3, 2), ae.get("dec2").get(0).shape());
    assertEquals(101f, ae.get("dec2").get(0).data()[1]); // W itself
    assertEquals(-101f, ae.get("dec2").get(1).data()[1]); // visible bias
    assertEquals(Shape.of(4), ae.get("dec1").get(1).shape());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> AutoEncoderNet.unroll(List.of(rbm(4, 3, 0), rbm(5, 2, 0))));
    assertTrue(e.getMessage().contains("does not chain"), e.getMessage());
  }

  @Test
  void netTextHasTheUnrolledLayersAndALinearCode() {
    String t = AutoEncoderNet.netText(new int[] {784, 1000, 500, 250, 2}, 100);
    assertTrue(t.contains("dim: 100 dim: 784"), t);
    for (String layer : List.of("enc1", "enc4", "dec4", "dec1")) {
      assertTrue(t.contains("name: \"" + layer + "\""), layer);
    }
    assertTrue(t.contains("top: \"code\""), t);
    assertTrue(!t.contains("name: \"enc4_sigmoid\""), "the code must be linear");
    assertTrue(t.contains("SigmoidCrossEntropyLoss"), t);
    assertThrows(IllegalArgumentException.class, () -> AutoEncoderNet.netText(new int[] {784}, 10));
  }

  @Test
  void pcaFindsTheTopEigenvectors() {
    // diag(5, 3, 1) rotated in the first two axes by 30 degrees.
    double c = Math.cos(Math.PI / 6);
    double s = Math.sin(Math.PI / 6);
    double[] m = {
      5 * c * c + 3 * s * s, (5 - 3) * c * s, 0, (5 - 3) * c * s, 5 * s * s + 3 * c * c, 0, 0, 0, 1
    };
    double[][] q = Pca.topEigenvectors(m, 3, 2);
    assertEquals(1, Math.abs(q[0][0] * c + q[0][1] * s), 1e-9);
    assertEquals(1, Math.abs(-q[1][0] * s + q[1][1] * c), 1e-9);
    assertEquals(0, q[0][2], 1e-9);
  }
}
