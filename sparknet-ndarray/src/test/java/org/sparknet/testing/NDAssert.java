package org.sparknet.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.Arrays;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/** Assertions over tensors: shape first, then every element, reporting index, expected, actual. */
public final class NDAssert {
  private NDAssert() {}

  public static void assertAllClose(NDArray expected, NDArray actual, Tolerance tol) {
    assertAllClose(expected.shape(), expected.toArray(), actual.shape(), actual.toArray(), tol);
  }

  public static void assertAllClose(float[] expected, NDArray actual, Tolerance tol) {
    assertAllClose(
        Shape.of(expected.length),
        expected,
        Shape.of(Math.toIntExact(actual.size())),
        actual.toArray(),
        tol);
  }

  public static void assertAllClose(float[] expected, float[] actual, Tolerance tol) {
    assertAllClose(Shape.of(expected.length), expected, Shape.of(actual.length), actual, tol);
  }

  public static void assertAllClose(
      Shape expectedShape, float[] expected, Shape actualShape, float[] actual, Tolerance tol) {
    if (!expectedShape.equals(actualShape)) {
      fail("Shape mismatch: expected " + expectedShape + " but was " + actualShape);
    }
    for (int i = 0; i < expected.length; i++) {
      if (!tol.accepts(actual[i], expected[i])) {
        fail(
            "Mismatch at flat index "
                + i
                + " "
                + Arrays.toString(unravel(i, expectedShape))
                + " of shape "
                + expectedShape
                + ": expected "
                + expected[i]
                + " but was "
                + actual[i]
                + " ("
                + tol
                + ")");
      }
    }
  }

  private static int[] unravel(long flat, Shape shape) {
    int[] idx = new int[shape.rank()];
    for (int d = shape.rank() - 1; d >= 0; d--) {
      idx[d] = (int) (flat % shape.dim(d));
      flat /= shape.dim(d);
    }
    return idx;
  }
}
