package org.sparknet.ndarray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * Arithmetic on contiguous arrays (OpenBLAS), on contiguous views at an offset, and on strided
 * views (plain loops), each against a plain Java reference on float[]. Elements outside the view
 * must be left untouched.
 *
 * <p>Tolerances: copies and fills are {@link Tolerance#EXACT}; scale and addScaled are {@link
 * Tolerance#FLOAT} (BLAS may fuse the multiply-add: one rounding less than the reference); dot and
 * norm2 accumulate in double, so they match a double reference to {@link #DOUBLE_SUM}.
 */
class NDArrayArithmeticTest {
  /** Sums of products of floats accumulated in double in another order: relative 1e-12. */
  static final Tolerance DOUBLE_SUM = new Tolerance(1e-12, 1e-12);

  /** How to cut a view out of an owner of shape [6, 8, 5]. */
  static Stream<Named<Function<NDArray, NDArray>>> layouts() {
    return Stream.of(
        Named.of("contiguous owner", a -> a),
        Named.of("contiguous view at an offset", a -> a.slice(0, 2)),
        Named.of("contiguous reshaped view", a -> a.slice(0, 3).reshape(5, 8)),
        Named.of("strided subArray", a -> a.subArray(new int[] {1, 2, 1}, new int[] {4, 5, 3})),
        Named.of("strided slice (axis 2)", a -> a.slice(2, 3)),
        Named.of(
            "strided view of a view",
            a -> a.subArray(new int[] {1, 0, 0}, new int[] {5, 8, 5}).slice(1, 6)));
  }

  static final int[] DIMS = {6, 8, 5};

  static float[] random(Random rnd, int n) {
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) rnd.nextGaussian();
    }
    return a;
  }

  /** Owners x and y with random data; the op runs on the same view of each. */
  private interface Case {
    void run(NDArray x, NDArray y, NDArray vx, NDArray vy);
  }

  private static void withOwners(Function<NDArray, NDArray> layout, Case c) {
    Random rnd = new Random(5);
    try (NDArray x = NDArray.create(random(rnd, 240), DIMS);
        NDArray y = NDArray.create(random(rnd, 240), DIMS)) {
      c.run(x, y, layout.apply(x), layout.apply(y));
    }
  }

  /** Expected owner contents after writing {@code viewValues} through the view. */
  private static float[] ownerAfter(NDArray owner, NDArray view, float[] viewValues) {
    // Find where the view's elements live by writing NaN markers into a scratch copy of the layout.
    float[] before = owner.toArray();
    float[] saved = view.toArray();
    view.fill(Float.NaN);
    float[] marked = owner.toArray();
    view.copyFrom(saved);
    float[] expected = before.clone();
    int k = 0;
    for (int i = 0; i < marked.length; i++) {
      if (Float.isNaN(marked[i])) {
        expected[i] = viewValues[k++];
      }
    }
    assertEquals(viewValues.length, k, "view elements found in the owner");
    return expected;
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void addScaledAndAddMatchJava(Function<NDArray, NDArray> layout) {
    withOwners(
        layout,
        (x, y, vx, vy) -> {
          float[] a = vx.toArray();
          float[] b = vy.toArray();
          float[] ref = new float[a.length];
          for (int i = 0; i < a.length; i++) {
            ref[i] = a[i] + 0.75f * b[i] + b[i];
          }
          float[] expectedOwner = ownerAfter(x, vx, ref);
          vx.addScaled(0.75f, vy).add(vy);
          NDAssert.assertAllClose(ref, vx.toArray(), Tolerance.FLOAT);
          NDAssert.assertAllClose(expectedOwner, x.toArray(), Tolerance.FLOAT);
          NDAssert.assertAllClose(b, vy.toArray(), Tolerance.EXACT); // source untouched
        });
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void scaleAndFillMatchJava(Function<NDArray, NDArray> layout) {
    withOwners(
        layout,
        (x, y, vx, vy) -> {
          float[] a = vx.toArray();
          float[] ref = new float[a.length];
          for (int i = 0; i < a.length; i++) {
            ref[i] = a[i] * -1.5f;
          }
          float[] expectedOwner = ownerAfter(x, vx, ref);
          vx.scale(-1.5f);
          NDAssert.assertAllClose(expectedOwner, x.toArray(), Tolerance.FLOAT);

          float[] fives = new float[a.length];
          java.util.Arrays.fill(fives, 5f);
          float[] filledOwner = ownerAfter(y, vy, fives);
          vy.fill(5f);
          NDAssert.assertAllClose(filledOwner, y.toArray(), Tolerance.EXACT);
        });
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void copyFromMatchesJava(Function<NDArray, NDArray> layout) {
    withOwners(
        layout,
        (x, y, vx, vy) -> {
          float[] b = vy.toArray();
          float[] expectedOwner = ownerAfter(x, vx, b);
          vx.copyFrom(vy);
          NDAssert.assertAllClose(expectedOwner, x.toArray(), Tolerance.EXACT);
          // and from a heap array, and into a contiguous array of another layout
          float[] heap = random(new Random(8), b.length);
          vx.copyFrom(heap);
          NDAssert.assertAllClose(heap, vx.toArray(), Tolerance.EXACT);
          try (NDArray dense = NDArray.zeros(vx.shape().dims())) {
            dense.copyFrom(vx);
            NDAssert.assertAllClose(heap, dense, Tolerance.EXACT);
          }
        });
  }

  @ParameterizedTest
  @MethodSource("layouts")
  void dotAndNorm2MatchADoubleReference(Function<NDArray, NDArray> layout) {
    withOwners(
        layout,
        (x, y, vx, vy) -> {
          float[] a = vx.toArray();
          float[] b = vy.toArray();
          double dot = 0;
          double sq = 0;
          for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            sq += (double) a[i] * a[i];
          }
          assertTrue(DOUBLE_SUM.accepts(vx.dot(vy), dot), vx.dot(vy) + " vs " + dot);
          assertTrue(
              DOUBLE_SUM.accepts(vx.norm2(), Math.sqrt(sq)), vx.norm2() + " vs " + Math.sqrt(sq));
        });
  }

  @Test
  void stridedAndContiguousOperandsMix() {
    Random rnd = new Random(3);
    try (NDArray m = NDArray.create(random(rnd, 20), 4, 5);
        NDArray v = NDArray.create(random(rnd, 4), 4)) {
      NDArray column = m.slice(1, 1);
      assertFalse(column.isContiguous());
      float[] c = column.toArray();
      float[] w = v.toArray();
      v.addScaled(2f, column);
      float[] ref = new float[4];
      for (int i = 0; i < 4; i++) {
        ref[i] = w[i] + 2f * c[i];
      }
      NDAssert.assertAllClose(ref, v, Tolerance.FLOAT);
      column.copyFrom(v);
      NDAssert.assertAllClose(v.toArray(), column.toArray(), Tolerance.EXACT);
    }
  }

  @Test
  void overlappingViewsReadTheSourceBeforeWriting() {
    float[] data = {0, 1, 2, 3, 4, 5, 6, 7};
    try (NDArray a = NDArray.create(data, 8)) {
      NDArray head = a.subArray(new int[] {0}, new int[] {6});
      NDArray tail = a.subArray(new int[] {2}, new int[] {6});
      tail.copyFrom(head); // memmove semantics
      NDAssert.assertAllClose(new float[] {0, 1, 0, 1, 2, 3, 4, 5}, a, Tolerance.EXACT);
      a.copyFrom(data);
      tail.add(head);
      NDAssert.assertAllClose(new float[] {0, 1, 2, 4, 6, 8, 10, 12}, a, Tolerance.EXACT);
      a.copyFrom(data);
      a.add(a); // same layout: element-wise, no copy needed
      NDAssert.assertAllClose(new float[] {0, 2, 4, 6, 8, 10, 12, 14}, a, Tolerance.EXACT);
    }
  }

  @Test
  void shapeMismatchNamesBothShapes() {
    try (NDArray a = NDArray.zeros(2, 3);
        NDArray b = NDArray.zeros(3, 2)) {
      for (Runnable op :
          new Runnable[] {
            () -> a.add(b), () -> a.addScaled(2, b), () -> a.copyFrom(b), () -> a.dot(b)
          }) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, op::run);
        assertTrue(
            e.getMessage().endsWith("shapes differ: this is [2, 3] but the other array is [3, 2]"),
            e.getMessage());
      }
      IllegalArgumentException heap =
          assertThrows(IllegalArgumentException.class, () -> a.copyFrom(new float[5]));
      assertEquals("Array of shape [2, 3] holds 6 floats but the source has 5", heap.getMessage());
      IllegalArgumentException dest =
          assertThrows(IllegalArgumentException.class, () -> a.copyTo(new float[6], 1));
      assertEquals(
          "Array of shape [2, 3] (6 floats) does not fit in a float[6] at offset 1",
          dest.getMessage());
    }
  }
}
