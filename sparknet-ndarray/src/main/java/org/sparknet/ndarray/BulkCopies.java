package org.sparknet.ndarray;

import java.nio.FloatBuffer;
import org.bytedeco.openblas.global.openblas;

/**
 * Copies between arrays and the heap, in row-major order: one bulk transfer for contiguous memory,
 * a walk over the strides for views.
 */
final class BulkCopies {
  private BulkCopies() {}

  static void toHeap(NDArray a, float[] dest, int destOffset) {
    a.checkOpen();
    long size = a.size();
    if (destOffset < 0 || (long) destOffset + size > dest.length) {
      throw new IllegalArgumentException(
          "Array of shape "
              + a.shape()
              + " ("
              + size
              + " floats) does not fit in a float["
              + dest.length
              + "] at offset "
              + destOffset);
    }
    if (size == 0) {
      return;
    }
    if (a.isContiguous()) {
      FloatBuffer b = a.storage().buffer().duplicate();
      b.position((int) a.offset());
      b.get(dest, destOffset, (int) size);
    } else {
      FloatBuffer b = a.storage().buffer();
      NDArray.Walker w = a.new Walker();
      for (int i = 0, n = (int) size; i < n; i++) {
        dest[destOffset + i] = b.get(w.next());
      }
    }
  }

  static void fromHeap(NDArray a, float[] src, int srcOffset) {
    a.checkOpen();
    long size = a.size();
    if (srcOffset < 0 || (long) srcOffset + size > src.length) {
      throw new IllegalArgumentException(
          "Array of shape "
              + a.shape()
              + " needs "
              + size
              + " floats but float["
              + src.length
              + "] from offset "
              + srcOffset
              + " has fewer");
    }
    if (size == 0) {
      return;
    }
    if (a.isContiguous()) {
      FloatBuffer b = a.storage().buffer().duplicate();
      b.position((int) a.offset());
      b.put(src, srcOffset, (int) size);
    } else {
      FloatBuffer b = a.storage().buffer();
      NDArray.Walker w = a.new Walker();
      for (int i = 0, n = (int) size; i < n; i++) {
        b.put(w.next(), src[srcOffset + i]);
      }
    }
  }

  static void between(NDArray src, NDArray dst) {
    dst.checkSameShape(src, "copyFrom");
    long size = dst.size();
    if (size == 0 || src.sameLayout(dst)) {
      return;
    }
    if (src.storage() == dst.storage()) {
      fromHeap(dst, src.toArray(), 0); // overlapping views: read all of src before writing
    } else if (dst.isContiguous() && src.isContiguous()) {
      openblas.cblas_scopy((int) size, src.ptr(), 1, dst.ptr(), 1);
    } else {
      FloatBuffer from = src.storage().buffer();
      FloatBuffer to = dst.storage().buffer();
      NDArray.Walker r = src.new Walker();
      NDArray.Walker w = dst.new Walker();
      for (long i = 0; i < size; i++) {
        to.put(w.next(), from.get(r.next()));
      }
    }
  }
}
