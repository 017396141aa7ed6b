package org.sparknet.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

class NDAssertTest {

  @Test
  void reportsShapeBeforeValues() {
    try (NDArray a = NDArray.zeros(2, 3);
        NDArray b = NDArray.zeros(3, 2)) {
      AssertionFailedError e =
          assertThrows(
              AssertionFailedError.class, () -> NDAssert.assertAllClose(a, b, Tolerance.LOOSE));
      assertEquals("Shape mismatch: expected [2, 3] but was [3, 2]", e.getMessage());
    }
  }

  @Test
  void reportsFlatIndexMultiIndexExpectedActualAndTolerance() {
    try (NDArray expected = NDArray.create(new float[] {0, 1, 2, 3, 4, 5}, 2, 3);
        NDArray actual = NDArray.create(new float[] {0, 1, 2, 3, 4.5f, 7}, 2, 3)) {
      AssertionFailedError e =
          assertThrows(
              AssertionFailedError.class,
              () -> NDAssert.assertAllClose(expected, actual, Tolerance.FLOAT));
      assertEquals(
          "Mismatch at flat index 4 [1, 1] of shape [2, 3]: expected 4.0 but was 4.5"
              + " (Tolerance[rtol=1.0E-5, atol=1.0E-6])",
          e.getMessage());
    }
  }

  @Test
  void comparesViewsByTheirElements() {
    try (NDArray m = NDArray.create(new float[] {1, 2, 3, 4}, 2, 2)) {
      NDAssert.assertAllClose(new float[] {2, 4}, m.slice(1, 1), Tolerance.EXACT);
      assertThrows(
          AssertionFailedError.class,
          () -> NDAssert.assertAllClose(new float[] {2, 3}, m.slice(1, 1), Tolerance.EXACT));
    }
  }

  @Test
  void toleranceBoundsAndNaN() {
    assertTrue(Tolerance.FLOAT.accepts(1.0 + 1e-5, 1.0), "rtol*|e| + atol is inclusive");
    assertFalse(Tolerance.FLOAT.accepts(1.0 + 2e-5, 1.0));
    assertTrue(Tolerance.EXACT.accepts(3.0, 3.0));
    assertFalse(Tolerance.EXACT.accepts(Math.nextUp(3.0f), 3.0f));
    assertTrue(Tolerance.LOOSE.accepts(Float.NaN, Float.NaN), "NaN where NaN is expected");
    assertFalse(Tolerance.LOOSE.accepts(Float.NaN, 1.0), "NaN where a number is expected");
    assertFalse(Tolerance.LOOSE.accepts(1.0, Float.NaN));
    assertTrue(Tolerance.EXACT.accepts(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY));
    assertFalse(Tolerance.LOOSE.accepts(Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY));
    assertFalse(Tolerance.LOOSE.accepts(Float.MAX_VALUE, Float.POSITIVE_INFINITY));
    assertThrows(
        AssertionFailedError.class,
        () ->
            NDAssert.assertAllClose(
                Shape.of(1),
                new float[] {1},
                Shape.of(1),
                new float[] {Float.NaN},
                Tolerance.LOOSE));
  }
}
