package org.sparknet.ndarray;

import java.nio.FloatBuffer;
import org.bytedeco.openblas.global.openblas;

/**
 * The element-wise arithmetic behind {@link NDArray#fill}, {@link NDArray#scale}, {@link
 * NDArray#addScaled} and {@link NDArray#dot}: OpenBLAS on contiguous memory, a walk over the
 * strides otherwise.
 */
final class ElementOps {
  private ElementOps() {}

  static NDArray fill(NDArray a, float value) {
    a.checkOpen();
    FloatBuffer b = a.storage().buffer();
    if (a.isContiguous()) {
      for (int i = (int) a.offset(), end = (int) (a.offset() + a.size()); i < end; i++) {
        b.put(i, value);
      }
    } else {
      NDArray.Walker w = a.new Walker();
      for (long i = 0; i < a.size(); i++) {
        b.put(w.next(), value);
      }
    }
    return a;
  }

  static NDArray scale(NDArray a, float alpha) {
    a.checkOpen();
    if (a.size() == 0) {
      return a;
    }
    if (a.isContiguous()) {
      openblas.cblas_sscal((int) a.size(), alpha, a.ptr(), 1);
    } else {
      FloatBuffer b = a.storage().buffer();
      NDArray.Walker w = a.new Walker();
      for (long i = 0; i < a.size(); i++) {
        int p = w.next();
        b.put(p, b.get(p) * alpha);
      }
    }
    return a;
  }

  /** {@code y += alpha * x}. */
  static NDArray addScaled(NDArray y, float alpha, NDArray x) {
    y.checkSameShape(x, "addScaled");
    if (y.size() == 0) {
      return y;
    }
    if (x.storage() == y.storage() && !x.sameLayout(y)) {
      // Overlapping views: read all of x before writing (the same layout is safe element-wise).
      try (NDArray copy = NDArray.create(x.toArray(), y.shape().dims())) {
        return addScaled(y, alpha, copy);
      }
    }
    if (y.isContiguous() && x.isContiguous()) {
      openblas.cblas_saxpy((int) y.size(), alpha, x.ptr(), 1, y.ptr(), 1);
    } else {
      FloatBuffer xs = x.storage().buffer();
      FloatBuffer ys = y.storage().buffer();
      NDArray.Walker r = x.new Walker();
      NDArray.Walker w = y.new Walker();
      for (long i = 0; i < y.size(); i++) {
        int p = w.next();
        ys.put(p, ys.get(p) + alpha * xs.get(r.next()));
      }
    }
    return y;
  }

  /**
   * A plain loop in double: OpenBLAS's {@code cblas_dsdot} accumulates in float on the presets'
   * build, which loses the precision this is for.
   */
  static double dot(NDArray a, NDArray b) {
    a.checkSameShape(b, "dot");
    if (a.size() == 0) {
      return 0;
    }
    FloatBuffer x = a.storage().buffer();
    FloatBuffer y = b.storage().buffer();
    double s = 0;
    if (a.isContiguous() && b.isContiguous()) {
      int i = (int) a.offset();
      int j = (int) b.offset();
      for (int end = (int) (a.offset() + a.size()); i < end; i++, j++) {
        s += (double) x.get(i) * y.get(j);
      }
      return s;
    }
    NDArray.Walker wa = a.new Walker();
    NDArray.Walker wb = b.new Walker();
    for (long i = 0; i < a.size(); i++) {
      s += (double) x.get(wa.next()) * y.get(wb.next());
    }
    return s;
  }
}
