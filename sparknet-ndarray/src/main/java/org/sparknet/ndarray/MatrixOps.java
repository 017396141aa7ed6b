package org.sparknet.ndarray;

import java.nio.FloatBuffer;
import java.util.Arrays;
import org.bytedeco.openblas.global.openblas;

/**
 * The matrix arithmetic behind {@link NDArray#gemm}, {@link NDArray#matmul}, {@link
 * NDArray#sigmoid}, {@link NDArray#addRowVector} and {@link NDArray#sumRows}: OpenBLAS where it has
 * the operation, plain loops over the memory where a JNI call per block would cost more than it
 * saves.
 */
final class MatrixOps {
  private MatrixOps() {}

  /** {@code c = alpha op(a) op(b) + beta c}; see {@link NDArray#gemm}. */
  static NDArray gemm(
      NDArray c, float alpha, NDArray a, boolean transA, NDArray b, boolean transB, float beta) {
    checkMatrix(a, "a");
    checkMatrix(b, "b");
    checkMatrix(c, "the result (this)");
    int[] ad = a.dimsRef();
    int[] bd = b.dimsRef();
    int m = transA ? ad[1] : ad[0];
    int k = transA ? ad[0] : ad[1];
    int kb = transB ? bd[1] : bd[0];
    int n = transB ? bd[0] : bd[1];
    String ops =
        (transA ? "a^T " : "a ")
            + a.shape()
            + " x "
            + (transB ? "b^T " : "b ")
            + b.shape()
            + " -> this "
            + c.shape();
    if (k != kb) {
      throw new IllegalArgumentException(
          "gemm: inner dimensions differ ("
              + k
              + " vs "
              + kb
              + ") in "
              + ops
              + "; transpose an operand or fix its shape");
    }
    if (c.dimsRef()[0] != m || c.dimsRef()[1] != n) {
      throw new IllegalArgumentException(
          "gemm: the result must be [" + m + ", " + n + "] but is " + c.shape() + " in " + ops);
    }
    if (a.storage() == c.storage() || b.storage() == c.storage()) {
      throw new IllegalArgumentException(
          "gemm: the result shares memory with an operand in "
              + ops
              + "; write into another array");
    }
    if (c.size() == 0) {
      return c;
    }
    if (k == 0) {
      return c.scale(beta); // empty sum: BLAS implementations disagree on lda for k = 0
    }
    openblas.cblas_sgemm(
        openblas.CblasRowMajor,
        transA ? openblas.CblasTrans : openblas.CblasNoTrans,
        transB ? openblas.CblasTrans : openblas.CblasNoTrans,
        m,
        n,
        k,
        alpha,
        a.ptr(),
        ad[1],
        b.ptr(),
        bd[1],
        beta,
        c.ptr(),
        n);
    return c;
  }

  /** A new owning array {@code a b}. */
  static NDArray matmul(NDArray a, NDArray b) {
    checkMatrix(a, "a");
    checkMatrix(b, "b");
    NDArray c = NDArray.zeros(a.dimsRef()[0], b.dimsRef()[1]);
    try {
      return gemm(c, 1f, a, false, b, false, 0f);
    } catch (RuntimeException e) {
      c.close();
      throw e;
    }
  }

  private static void checkMatrix(NDArray x, String role) {
    x.checkOpen();
    if (x.rank() != 2) {
      throw new IllegalArgumentException(
          "gemm: " + role + " must be a matrix (rank 2) but has shape " + x.shape());
    }
    if (!x.isContiguous()) {
      throw new IllegalArgumentException(
          "gemm: "
              + role
              + " of shape "
              + x.shape()
              + " is a strided view (strides "
              + Arrays.toString(x.strides())
              + "); BLAS needs row-major contiguous memory, copy it first");
    }
  }

  /**
   * The logistic function in place. A plain loop: OpenBLAS has no element-wise transcendental
   * functions, and the JIT's {@code Math.exp} costs less than a JNI call per block would save.
   */
  static NDArray sigmoid(NDArray x) {
    x.checkOpen();
    FloatBuffer buf = x.storage().buffer();
    if (x.isContiguous()) {
      for (int i = (int) x.offset(), end = (int) (x.offset() + x.size()); i < end; i++) {
        buf.put(i, logistic(buf.get(i)));
      }
    } else {
      NDArray.Walker w = x.new Walker();
      for (long i = 0; i < x.size(); i++) {
        int p = w.next();
        buf.put(p, logistic(buf.get(p)));
      }
    }
    return x;
  }

  private static float logistic(float x) {
    return (float) (1.0 / (1.0 + Math.exp(-x)));
  }

  /** {@code v} must be open and of shape [columns of m]; {@code what} names it in the error. */
  private static void checkRowOf(NDArray m, NDArray v, String what) {
    v.checkOpen();
    int cols = m.dimsRef()[1];
    if (v.rank() != 1 || v.dimsRef()[0] != cols) {
      throw new IllegalArgumentException(
          what + " must have shape [" + cols + "] but has " + v.shape());
    }
  }

  /** Adds {@code row} to every row of {@code m}; a loop (one axpy per row is a JNI call each). */
  static NDArray addRowVector(NDArray m, NDArray row) {
    checkMatrix(m, "addRowVector's target");
    checkRowOf(m, row, "addRowVector: the row");
    int[] dims = m.dimsRef();
    float[] r = row.toArray(); // also copes with a row that overlaps this array
    FloatBuffer buf = m.storage().buffer();
    int cols = dims[1];
    for (int i = 0, p = (int) m.offset(); i < dims[0]; i++) {
      for (int j = 0; j < cols; j++, p++) {
        buf.put(p, buf.get(p) + r[j]);
      }
    }
    return m;
  }

  /** {@code out = alpha * (column sums of m) + beta * out}, accumulated in double. */
  static NDArray sumRows(NDArray m, float alpha, NDArray out, float beta) {
    checkMatrix(m, "sumRows' source");
    checkRowOf(m, out, "sumRows: the output");
    int[] dims = m.dimsRef();
    if (out.storage() == m.storage()) {
      throw new IllegalArgumentException("sumRows: the output shares memory with the source");
    }
    int cols = dims[1];
    double[] acc = new double[cols];
    FloatBuffer buf = m.storage().buffer();
    for (int i = 0, p = (int) m.offset(); i < dims[0]; i++) {
      for (int j = 0; j < cols; j++, p++) {
        acc[j] += buf.get(p);
      }
    }
    for (int j = 0; j < cols; j++) {
      float old = beta == 0f ? 0f : out.get(j);
      out.set((float) (alpha * acc[j] + beta * old), j);
    }
    return out;
  }
}
