package org.sparknet.ndarray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * gemm (OpenBLAS) against a naive triple loop in double, for every combination of transposes and
 * with alpha and beta; the element-wise helpers of the RBM against plain Java. Tolerance for gemm:
 * {@link Tolerance#LOOSE} (float sums of up to 37 products in another order, compared with a double
 * reference).
 */
class NDArrayMatrixTest {

  private static float[] random(Random rnd, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) rnd.nextGaussian();
    }
    return a;
  }

  @ParameterizedTest(name = "transA={0} transB={1} alpha={2} beta={3}")
  @CsvSource({
    "false,false,1,0",
    "true,false,1,0",
    "false,true,0.5,1",
    "true,true,-2,0.25",
  })
  void gemmMatchesNaiveTripleLoop(boolean transA, boolean transB, float alpha, float beta) {
    int m = 7;
    int k = 37;
    int n = 5;
    Random rnd = new Random(11);
    float[] a = random(rnd, m * k);
    float[] b = random(rnd, k * n);
    float[] c0 = random(rnd, m * n);
    // a is stored as op(a)'s transpose when transA, likewise b.
    try (NDArray na = transA ? NDArray.create(a, k, m) : NDArray.create(a, m, k);
        NDArray nb = transB ? NDArray.create(b, n, k) : NDArray.create(b, k, n);
        NDArray nc = NDArray.create(c0, m, n)) {
      nc.gemm(alpha, na, transA, nb, transB, beta);
      float[] expected = new float[m * n];
      for (int i = 0; i < m; i++) {
        for (int j = 0; j < n; j++) {
          double s = 0;
          for (int p = 0; p < k; p++) {
            double x = transA ? a[p * m + i] : a[i * k + p];
            double y = transB ? b[j * k + p] : b[p * n + j];
            s += x * y;
          }
          expected[i * n + j] = (float) (alpha * s + beta * c0[i * n + j]);
        }
      }
      NDAssert.assertAllClose(Shape.of(m, n), expected, nc.shape(), nc.toArray(), Tolerance.LOOSE);
    }
  }

  @Test
  void gemmOnContiguousViewsAndMatmul() {
    Random rnd = new Random(3);
    try (NDArray big = NDArray.create(random(rnd, 3 * 4 * 6), 3, 4, 6);
        NDArray b = NDArray.create(random(rnd, 6 * 2), 6, 2);
        NDArray out = NDArray.zeros(2, 4, 2)) {
      NDArray a = big.slice(0, 1); // [4, 6] at an offset
      NDArray c = out.slice(0, 1); // [4, 2] at an offset
      c.gemm(1f, a, false, b, false, 0f);
      try (NDArray copy = NDArray.create(a.toArray(), 4, 6);
          NDArray ref = NDArray.matmul(copy, b)) {
        NDAssert.assertAllClose(ref, c, Tolerance.EXACT);
      }
      NDAssert.assertAllClose(new float[8], out.slice(0, 0), Tolerance.EXACT); // untouched
    }
  }

  @Test
  void gemmRejectsBadShapesWithClearMessages() {
    try (NDArray a = NDArray.zeros(3, 4);
        NDArray b = NDArray.zeros(5, 2);
        NDArray c = NDArray.zeros(3, 2);
        NDArray v = NDArray.zeros(4);
        NDArray wide = NDArray.zeros(4, 6)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> c.gemm(1, a, false, b, false, 0));
      assertTrue(e.getMessage().contains("inner dimensions differ (4 vs 5)"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> c.gemm(1, a, true, b, true, 0));
      assertTrue(e.getMessage().contains("inner dimensions differ (3 vs 2)"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> a.gemm(1, a, false, wide, false, 0));
      assertTrue(e.getMessage().contains("must be [3, 6]"), e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> c.gemm(1, v, false, b, false, 0));
      assertTrue(e.getMessage().contains("a must be a matrix (rank 2)"), e.getMessage());
      NDArray strided = wide.subArray(new int[] {0, 1}, new int[] {4, 2});
      e =
          assertThrows(
              IllegalArgumentException.class, () -> c.gemm(1, a, false, strided, false, 0));
      assertTrue(e.getMessage().contains("strided view"), e.getMessage());
      NDArray aliased = wide.reshape(4, 6);
      try (NDArray sq = NDArray.zeros(6, 6)) {
        e =
            assertThrows(
                IllegalArgumentException.class, () -> aliased.gemm(1, wide, false, sq, false, 0));
        assertTrue(e.getMessage().contains("shares memory"), e.getMessage());
      }
    }
  }

  @Test
  void gemmAfterCloseFails() {
    NDArray a = NDArray.zeros(2, 2);
    try (NDArray c = NDArray.zeros(2, 2)) {
      a.close();
      assertThrows(IllegalStateException.class, () -> c.gemm(1, a, false, a, false, 0));
    }
  }

  @Test
  void sigmoidRowVectorAndRowSums() {
    float[] x = {-3f, -0.5f, 0f, 0.5f, 3f, 20f};
    try (NDArray a = NDArray.create(x, 2, 3);
        NDArray bias = NDArray.create(new float[] {1f, 2f, 3f}, 3);
        NDArray sums = NDArray.create(new float[] {10f, 10f, 10f}, 3)) {
      a.sigmoid();
      float[] expected = new float[6];
      for (int i = 0; i < 6; i++) {
        expected[i] = (float) (1 / (1 + Math.exp(-x[i])));
      }
      NDAssert.assertAllClose(expected, a.toArray(), Tolerance.FLOAT);
      a.addRowVector(bias);
      for (int i = 0; i < 6; i++) {
        expected[i] += i % 3 + 1;
      }
      NDAssert.assertAllClose(expected, a.toArray(), Tolerance.FLOAT);
      a.sumRows(0.5f, sums, 2f);
      for (int j = 0; j < 3; j++) {
        assertEquals(0.5 * (expected[j] + expected[3 + j]) + 20, sums.get(j), 1e-5);
      }
      assertThrows(IllegalArgumentException.class, () -> a.addRowVector(sums.reshape(3, 1)));
      assertThrows(IllegalArgumentException.class, () -> a.sumRows(1, a.slice(0, 0), 0));
    }
  }
}
