package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.javacpp.FloatPointer;
import org.junit.jupiter.api.Test;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.Divergence;

/**
 * CaffeNet's divergence check reads a blob's finiteness from Caffe's {@code asum_data} (BLAS, where
 * the data lives). That relies on OpenBLAS's vectorised sasum letting a NaN or an infinity through
 * wherever it sits: at the start, in the SIMD body and in the scalar tail of a long blob.
 */
class FiniteCheckIT {

  @Test
  void aNanOrInfinityAnywhereMakesTheBlobNonFinite() {
    CaffeRuntime.load();
    int n = 5003; // a SIMD body and a tail
    for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
      for (int at : new int[] {0, 1, 17, 2500, n - 2, n - 1}) {
        try (FloatBlob b = new FloatBlob(1, 1, 1, n)) {
          FloatPointer d = b.mutable_cpu_data();
          for (int i = 0; i < n; i++) {
            d.put(i, (i % 7) - 3f);
          }
          assertTrue(Divergence.finite(b), "finite values read as finite");
          d.put(at, bad);
          assertFalse(Divergence.finite(b), bad + " at " + at + " of " + n + " was missed");
        }
      }
    }
  }
}
