package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.javacpp.FloatPointer;
import org.junit.jupiter.api.Test;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.Divergence;
import org.sparknet.caffe.internal.HostReads;
import org.sparknet.caffe.internal.StepProbe;

/**
 * CaffeNet's divergence checks read finiteness from BLAS where the data lives: each step sums every
 * output and weight blob into one value ({@code StepProbe}: OpenBLAS's sgemv against ones, a blob
 * viewed as rows of 4,096 floats and a tail), and only when that value is not finite searches blob
 * by blob with Caffe's {@code asum_data} (OpenBLAS's sasum). Both must let a NaN or an infinity
 * through wherever it sits: at the start, in the SIMD body and in the scalar tail, in the rows and
 * in the tail of the probe's view. Mutation: with the probe's tail gemv starting at the blob's
 * start instead of after its rows, this test failed at once: "the probe's sum of 5003 ==> expected:
 * <-5.0> but was: <-9.0>".
 */
class FiniteCheckIT {
  private static final int[] SIZES = {5003, 3 * 4096 + 5}; // a SIMD body and a tail; rows and tail

  @Test
  void aNanOrInfinityAnywhereMakesTheBlobNonFinite() {
    CaffeRuntime.load();
    HostReads reads = new HostReads();
    for (int n : SIZES) {
      try (StepProbe probe = new StepProbe(n, List.of(), 0, reads, true)) {
        for (float bad :
            new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
          for (int at : new int[] {0, 1, 17, 2500, 4095, 4096, n - 2, n - 1}) {
            try (FloatBlob b = new FloatBlob(1, 1, 1, n)) {
              FloatPointer d = b.mutable_cpu_data();
              long sum = 0;
              for (int i = 0; i < n; i++) {
                d.put(i, (i % 7) - 3f);
                sum += (i % 7) - 3;
              }
              assertTrue(Divergence.finite(reads.asum(b)), "finite values read as finite");
              probe.add(b);
              assertEquals(sum, probe.read(null, false)[0], "the probe's sum of " + n);
              d.put(at, bad);
              assertFalse(Divergence.finite(reads.asum(b)), bad + " at " + at + " of " + n);
              probe.add(b);
              float probed = probe.read(null, false)[0];
              assertFalse(Float.isFinite(probed), bad + " at " + at + " of " + n + " was missed");
              // The read starts the next sum afresh: a diverged step leaves nothing behind.
              d.put(at, 0f);
              probe.add(b);
              assertEquals(sum - ((at % 7) - 3), probe.read(null, false)[0], "after a reset");
            }
          }
        }
      }
    }
  }

  /** GPU mode's probe (an asum_data a blob, summed on the host), run here on the CPU. */
  @Test
  void theProbeOfGpuModeSeesTheSameNonFiniteValues() {
    CaffeRuntime.load();
    HostReads reads = new HostReads();
    int n = SIZES[1];
    try (StepProbe probe = new StepProbe(n, List.of(), 0, reads, false);
        FloatBlob b = new FloatBlob(1, 1, 1, n)) {
      FloatPointer d = b.mutable_cpu_data();
      for (int i = 0; i < n; i++) {
        d.put(i, (i % 7) - 3f);
      }
      for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
        probe.add(b);
        assertTrue(Float.isFinite(probe.read(null, false)[0]), "finite");
        d.put(n - 1, bad);
        probe.add(b);
        assertFalse(Float.isFinite(probe.read(null, false)[0]), bad + " was missed");
        d.put(n - 1, 0f);
      }
      assertEquals(6, reads.count(), "a read a blob added; none for the read itself");
    }
  }
}
