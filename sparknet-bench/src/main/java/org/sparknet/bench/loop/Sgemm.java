package org.sparknet.bench.loop;

import java.util.function.ToDoubleFunction;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.openblas.global.openblas;
import org.bytedeco.openblas.presets.openblas_nolapack;

/**
 * OpenBLAS sgemm timings through the openblas presets, and the BLAS thread count, which is one
 * setting per process shared by every caller of the library (Caffe links the same libopenblas:
 * {@link #threadsReachCaffe} checks that a change here speeds up Caffe's own gemm).
 */
public final class Sgemm {
  private Sgemm() {}

  static {
    Loader.load(openblas.class);
  }

  /** Sets OpenBLAS's thread count (openblas_set_num_threads) and returns what it reports after. */
  public static int setThreads(int n) {
    openblas_nolapack.blas_set_num_threads(n);
    return threads();
  }

  /** openblas_get_num_threads(). */
  public static int threads() {
    return openblas_nolapack.blas_get_num_threads();
  }

  /**
   * GFLOP/s of {@code C = A x B} (row-major, CBLAS transposes), repeated until {@code minNanos}
   * have passed after one untimed call.
   */
  public static double gflops(int transA, int transB, int m, int n, int k, long minNanos) {
    return timed(
        transA,
        transB,
        m,
        n,
        k,
        call -> {
          long calls = 0;
          long t0 = System.nanoTime();
          long elapsed;
          do {
            call.run();
            calls++;
            elapsed = System.nanoTime() - t0;
          } while (elapsed < minNanos);
          return 2.0 * m * n * k * calls / elapsed;
        });
  }

  /**
   * GFLOP/s of the fastest single {@code C = A x B} among the calls made in {@code minNanos} (at
   * least 3, after one untimed call): on a shared machine a timing window also measures the other
   * processes, while the fastest call is one they did not interrupt.
   */
  public static double bestCallGflops(int transA, int transB, int m, int n, int k, long minNanos) {
    return timed(
        transA,
        transB,
        m,
        n,
        k,
        call -> {
          long best = Long.MAX_VALUE;
          long start = System.nanoTime();
          for (int calls = 0; calls < 3 || System.nanoTime() - start < minNanos; calls++) {
            long t0 = System.nanoTime();
            call.run();
            best = Math.min(best, System.nanoTime() - t0);
          }
          return 2.0 * m * n * k / Math.max(1, best);
        });
  }

  /**
   * Fills the operands of one {@code M×N×K} product, makes one untimed call, and hands {@code
   * timing} the call to time; the operands are freed when it returns.
   */
  private static double timed(
      int transA, int transB, int m, int n, int k, ToDoubleFunction<Runnable> timing) {
    try (FloatPointer a = fill((long) m * k);
        FloatPointer b = fill((long) k * n);
        FloatPointer c = new FloatPointer((long) m * n)) {
      int lda = transA == GemmShapes.NO_TRANS ? k : m;
      int ldb = transB == GemmShapes.NO_TRANS ? n : k;
      Runnable call = () -> gemm(transA, transB, m, n, k, a, lda, b, ldb, c);
      call.run();
      return timing.applyAsDouble(call);
    }
  }

  private static void gemm(
      int ta,
      int tb,
      int m,
      int n,
      int k,
      FloatPointer a,
      int lda,
      FloatPointer b,
      int ldb,
      FloatPointer c) {
    openblas.cblas_sgemm(openblas.CblasRowMajor, ta, tb, m, n, k, 1f, a, lda, b, ldb, 0f, c, n);
  }

  /**
   * Caffe's caffe_cpu_gemm on a 512x512x512 product with 1 and with {@code threads} threads set
   * here: the speed-up it shows (about {@code threads} when the setting reaches Caffe's OpenBLAS, 1
   * when it does not). Leaves the thread count at 1.
   */
  public static double threadsReachCaffe(int threads) {
    int s = 512;
    try (FloatPointer a = fill((long) s * s);
        FloatPointer b = fill((long) s * s);
        FloatPointer c = new FloatPointer((long) s * s)) {
      setThreads(1);
      double one = caffeGemmSeconds(s, a, b, c);
      setThreads(threads);
      double many = caffeGemmSeconds(s, a, b, c);
      setThreads(1);
      return one / many;
    }
  }

  private static double caffeGemmSeconds(int s, FloatPointer a, FloatPointer b, FloatPointer c) {
    caffe.caffe_cpu_gemm_float(GemmShapes.NO_TRANS, GemmShapes.NO_TRANS, s, s, s, 1f, a, b, 0f, c);
    double best = Double.MAX_VALUE;
    for (int r = 0; r < 5; r++) {
      long t0 = System.nanoTime();
      caffe.caffe_cpu_gemm_float(
          GemmShapes.NO_TRANS, GemmShapes.NO_TRANS, s, s, s, 1f, a, b, 0f, c);
      best = Math.min(best, (System.nanoTime() - t0) / 1e9);
    }
    return best;
  }

  private static FloatPointer fill(long n) {
    FloatPointer p = new FloatPointer(n);
    for (long i = 0; i < n; i++) {
      p.put(i, (float) ((i * 2654435761L) % 1000) / 1000f - 0.5f);
    }
    return p;
  }
}
