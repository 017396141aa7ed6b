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
    move(a, dest, destOffset, true);
  }

  static void fromHeap(NDArray a, float[] src, int srcOffset) {
    move(a, src, srcOffset, false);
  }

  /** Copies the array's floats into {@code heap} from {@code offset} ({@code toHeap}) or back. */
  private static void move(NDArray a, float[] heap, int offset, boolean toHeap) {
    a.checkOpen();
    long size = a.size();
    if (offset < 0 || (long) offset + size > heap.length) {
      throw new IllegalArgumentException(
          toHeap
              ? "Array of shape "
                  + a.shape()
                  + " ("
                  + size
                  + " floats) does not fit in a float["
                  + heap.length
                  + "] at offset "
                  + offset
              : "Array of shape "
                  + a.shape()
                  + " needs "
                  + size
                  + " floats but float["
                  + heap.length
                  + "] from offset "
                  + offset
                  + " has fewer");
    }
    int n = (int) size;
    if (n == 0) {
      return;
    }
    if (a.isContiguous()) {
      FloatBuffer b = a.storage().buffer().duplicate();
      b.position((int) a.offset());
      if (toHeap) {
        b.get(heap, offset, n);
      } else {
        b.put(heap, offset, n);
      }
      return;
    }
    FloatBuffer b = a.storage().buffer();
    NDArray.Walker w = a.new Walker();
    if (toHeap) {
      for (int i = 0; i < n; i++) {
        heap[offset + i] = b.get(w.next());
      }
    } else {
      for (int i = 0; i < n; i++) {
        b.put(w.next(), heap[offset + i]);
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
