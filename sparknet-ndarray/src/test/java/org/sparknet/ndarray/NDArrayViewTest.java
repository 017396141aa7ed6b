package org.sparknet.ndarray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * Views over an owner filled with each element's flat index: any stride or offset error shows as a
 * wrong number. Expected values come from a plain re-indexing of Java arrays (no strides).
 */
class NDArrayViewTest {
  private static final int[][] SHAPES = {{7}, {4, 5}, {3, 4, 5}, {2, 3, 4, 5}};

  static float[] iota(long n) {
    float[] a = new float[(int) n];
    for (int i = 0; i < a.length; i++) {
      a[i] = i;
    }
    return a;
  }

  static int ravel(int[] idx, int[] dims) {
    int f = 0;
    for (int d = 0; d < dims.length; d++) {
      f = f * dims[d] + idx[d];
    }
    return f;
  }

  /** Advances idx in row-major order; false after the last index. */
  static boolean next(int[] idx, int[] dims) {
    for (int d = dims.length - 1; d >= 0; d--) {
      if (++idx[d] < dims[d]) {
        return true;
      }
      idx[d] = 0;
    }
    return false;
  }

  static long size(int[] dims) {
    long n = 1;
    for (int d : dims) {
      n *= d;
    }
    return n;
  }

  /** The block [offs, offs+ext) of values laid out row-major with dims. */
  static float[] subRef(float[] values, int[] dims, int[] offs, int[] ext) {
    float[] out = new float[(int) size(ext)];
    if (out.length == 0) {
      return out;
    }
    int[] i = new int[ext.length];
    int[] src = new int[ext.length];
    int k = 0;
    do {
      for (int d = 0; d < ext.length; d++) {
        src[d] = offs[d] + i[d];
      }
      out[k++] = values[ravel(src, dims)];
    } while (next(i, ext));
    return out;
  }

  /** The elements whose index along axis is k, row-major. */
  static float[] sliceRef(float[] values, int[] dims, int axis, int k) {
    int[] offs = new int[dims.length];
    int[] ext = dims.clone();
    offs[axis] = k;
    ext[axis] = 1;
    return subRef(values, dims, offs, ext);
  }

  static int[] without(int[] dims, int axis) {
    int[] out = new int[dims.length - 1];
    for (int i = 0, j = 0; i < dims.length; i++) {
      if (i != axis) {
        out[j++] = dims[i];
      }
    }
    return out;
  }

  /** Checks toArray, get(indices) and getFlat of a view against the expected row-major values. */
  static void assertView(float[] expected, int[] dims, NDArray view) {
    assertEquals(Shape.of(dims), view.shape(), "view shape");
    NDAssert.assertAllClose(
        Shape.of(dims), expected, view.shape(), view.toArray(), Tolerance.EXACT);
    if (expected.length == 0) {
      return;
    }
    int[] idx = new int[dims.length];
    int k = 0;
    do {
      assertEquals(expected[k], view.get(idx), "get" + Arrays.toString(idx));
      assertEquals(expected[k], view.getFlat(k), "getFlat(" + k + ")");
      k++;
    } while (next(idx, dims));
  }

  @ParameterizedTest(name = "rank {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  void subArrayAndSliceOfOwnerPickTheRightElements(int rank) {
    int[] dims = SHAPES[rank - 1];
    float[] values = iota(size(dims));
    Random rnd = new Random(17 + rank);
    try (NDArray owner = NDArray.create(values, dims)) {
      assertView(values, dims, owner);
      for (int trial = 0; trial < 20; trial++) {
        int[] offs = new int[rank];
        int[] ext = new int[rank];
        for (int d = 0; d < rank; d++) {
          offs[d] = rnd.nextInt(dims[d]);
          ext[d] = 1 + rnd.nextInt(dims[d] - offs[d]);
        }
        assertView(subRef(values, dims, offs, ext), ext, owner.subArray(offs, ext));
      }
      for (int axis = 0; axis < rank; axis++) {
        for (int k = 0; k < dims[axis]; k++) {
          assertView(sliceRef(values, dims, axis, k), without(dims, axis), owner.slice(axis, k));
        }
      }
    }
  }

  @ParameterizedTest(name = "rank {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  void viewsOfViewsComposeOffsetsAndStrides(int rank) {
    int[] dims = SHAPES[rank - 1];
    Random rnd = new Random(99 + rank);
    try (NDArray owner = NDArray.create(iota(size(dims)), dims)) {
      for (int trial = 0; trial < 40; trial++) {
        NDArray view = owner;
        int[] vdims = dims;
        float[] expected = iota(size(dims));
        for (int depth = 0; depth < 4 && vdims.length > 0; depth++) {
          int op = rnd.nextInt(3);
          if (op == 0) {
            int[] offs = new int[vdims.length];
            int[] ext = new int[vdims.length];
            for (int d = 0; d < vdims.length; d++) {
              offs[d] = rnd.nextInt(vdims[d]);
              ext[d] = 1 + rnd.nextInt(vdims[d] - offs[d]);
            }
            expected = subRef(expected, vdims, offs, ext);
            view = view.subArray(offs, ext);
            vdims = ext;
          } else if (op == 1 && vdims.length > 1) {
            int axis = rnd.nextInt(vdims.length);
            int k = rnd.nextInt(vdims[axis]);
            expected = sliceRef(expected, vdims, axis, k);
            view = view.slice(axis, k);
            vdims = without(vdims, axis);
          } else if (view.isContiguous()) {
            // reshape of a (contiguous) view: same elements, new shape
            int n = expected.length;
            int[] r = n % 2 == 0 ? new int[] {2, n / 2} : new int[] {n, 1};
            view = view.reshape(r);
            vdims = r;
          }
          assertView(expected, vdims, view);
        }
      }
    }
  }

  @Test
  void reshapeOfContiguousViewKeepsItsOffset() {
    int[] dims = {2, 3, 4, 5};
    try (NDArray owner = NDArray.create(iota(120), dims)) {
      NDArray block = owner.slice(0, 1); // elements 60..119, contiguous, offset 60
      assertTrue(block.isContiguous());
      NDArray flat = block.reshape(60);
      assertView(Arrays.copyOfRange(iota(120), 60, 120), new int[] {60}, flat);
      NDArray rows = owner.subArray(new int[] {1, 1, 0, 0}, new int[] {1, 2, 4, 5});
      assertTrue(rows.isContiguous(), "full trailing extents stay contiguous");
      assertView(Arrays.copyOfRange(iota(120), 80, 120), new int[] {8, 5}, rows.reshape(8, 5));
    }
  }

  @Test
  void reshapeOfStridedViewFailsAndSaysWhy() {
    try (NDArray owner = NDArray.create(iota(20), 4, 5)) {
      NDArray column = owner.slice(1, 2);
      assertFalse(column.isContiguous());
      assertEquals(5, column.strides()[0]);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> column.reshape(2, 2));
      assertEquals(
          "Cannot reshape a strided view of shape [4] with strides [5] without copying; copy it"
              + " first",
          e.getMessage());
      IllegalArgumentException size =
          assertThrows(IllegalArgumentException.class, () -> owner.reshape(3, 7));
      assertEquals("Cannot reshape [4, 5] (20 floats) to [3, 7] (21 floats)", size.getMessage());
    }
  }

  @Test
  void outOfBoundsIndicesFailWithAMessage() {
    try (NDArray a = NDArray.create(iota(12), 3, 4)) {
      IndexOutOfBoundsException get =
          assertThrows(IndexOutOfBoundsException.class, () -> a.get(1, 4));
      assertEquals(
          "Index [1, 4] is out of bounds for shape [3, 4] at dimension 1", get.getMessage());
      IndexOutOfBoundsException neg =
          assertThrows(IndexOutOfBoundsException.class, () -> a.set(1f, -1, 0));
      assertEquals(
          "Index [-1, 0] is out of bounds for shape [3, 4] at dimension 0", neg.getMessage());
      IllegalArgumentException arity = assertThrows(IllegalArgumentException.class, () -> a.get(1));
      assertEquals("Array of shape [3, 4] needs 2 indices but got 1 [1]", arity.getMessage());
      IndexOutOfBoundsException flat =
          assertThrows(IndexOutOfBoundsException.class, () -> a.getFlat(12));
      assertEquals("Flat index 12 is out of bounds for shape [3, 4] (size 12)", flat.getMessage());
      IndexOutOfBoundsException sub =
          assertThrows(
              IndexOutOfBoundsException.class,
              () -> a.subArray(new int[] {1, 2}, new int[] {2, 3}));
      assertEquals(
          "subArray offsets [1, 2] and extents [2, 3] exceed shape [3, 4] at dimension 1",
          sub.getMessage());
      IndexOutOfBoundsException slice =
          assertThrows(IndexOutOfBoundsException.class, () -> a.slice(0, 3));
      assertEquals("slice index 3 is out of bounds for axis 0 of shape [3, 4]", slice.getMessage());
      IllegalArgumentException axis =
          assertThrows(IllegalArgumentException.class, () -> a.slice(2, 0));
      assertEquals("slice axis 2 is outside shape [3, 4]", axis.getMessage());
      // a view checks its own bounds, not its owner's
      NDArray view = a.subArray(new int[] {1, 1}, new int[] {2, 2});
      IndexOutOfBoundsException v =
          assertThrows(IndexOutOfBoundsException.class, () -> view.get(0, 2));
      assertEquals("Index [0, 2] is out of bounds for shape [2, 2] at dimension 1", v.getMessage());
    }
  }

  @Test
  void writingThroughAViewIsVisibleInTheOwner() {
    try (NDArray owner = NDArray.zeros(3, 4)) {
      NDArray column = owner.slice(1, 2);
      column.copyFrom(new float[] {1, 2, 3});
      owner.subArray(new int[] {0, 0}, new int[] {1, 2}).fill(9);
      column.slice(0, 1).reshape(1).set(7, 0); // a rank-0 view of a view, reshaped
      assertEquals(7f, owner.get(1, 2));
      NDAssert.assertAllClose(
          new float[] {9, 9, 1, 0, 0, 0, 7, 0, 0, 0, 3, 0}, owner, Tolerance.EXACT);
    }
  }

  @Test
  void emptyAndScalarArraysWork() {
    try (NDArray empty = NDArray.zeros(3, 0);
        NDArray scalar = NDArray.create(new float[] {5}, new int[0])) {
      assertEquals(0, empty.size());
      assertEquals(0, empty.toArray().length);
      empty.fill(1).scale(2);
      assertEquals(0.0, empty.dot(empty));
      NDArray emptyView = empty.subArray(new int[] {3, 0}, new int[] {0, 0});
      emptyView.copyFrom(new float[0]);
      assertEquals(0, emptyView.toArray().length);
      assertEquals(1, scalar.size());
      assertEquals(5f, scalar.get());
      assertEquals(25.0, scalar.dot(scalar));
    }
  }

  @Test
  void shapeRejectsBadExtentsAndOverflow() {
    IllegalArgumentException neg =
        assertThrows(IllegalArgumentException.class, () -> Shape.of(2, -1));
    assertEquals("Shape [2, -1] has a negative extent at dimension 1", neg.getMessage());
    IllegalArgumentException big =
        assertThrows(
            IllegalArgumentException.class,
            () -> Shape.of(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE));
    assertTrue(big.getMessage().contains("more than"), big.getMessage());
    assertEquals(0, Shape.of(Integer.MAX_VALUE, 0, Integer.MAX_VALUE, Integer.MAX_VALUE).size());
    IllegalArgumentException longs =
        assertThrows(IllegalArgumentException.class, () -> Shape.ofLongs(1L << 31));
    assertEquals(
        "Shape [2147483648] has an out-of-range extent at dimension 0", longs.getMessage());
    IllegalArgumentException alloc =
        assertThrows(IllegalArgumentException.class, () -> NDArray.zeros(1 << 16, 1 << 16));
    assertEquals(
        "Cannot allocate 4294967296 floats: must be between 0 and 2147483647", alloc.getMessage());
  }
}
