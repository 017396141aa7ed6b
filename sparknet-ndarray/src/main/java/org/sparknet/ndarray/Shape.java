package org.sparknet.ndarray;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;

/** The dimensions of a tensor: an immutable list of non-negative extents, row-major. */
public final class Shape implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int[] dims;

  private Shape(int[] dims) {
    this.dims = dims;
  }

  /** A shape with the given extents; each must be {@code >= 0}. */
  public static Shape of(int... dims) {
    if (dims == null) {
      throw new IllegalArgumentException("Shape dimensions must not be null");
    }
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 0) {
        throw new IllegalArgumentException(
            "Shape " + Arrays.toString(dims) + " has a negative extent at dimension " + i);
      }
    }
    checkSizeFits(dims);
    return new Shape(dims.clone());
  }

  /** The element count must fit in a long, so that size() and strides never overflow. */
  private static void checkSizeFits(int[] dims) {
    long n = 1;
    for (int d : dims) {
      if (d == 0) {
        return;
      }
    }
    for (int d : dims) {
      try {
        n = Math.multiplyExact(n, (long) d);
      } catch (ArithmeticException e) {
        throw new IllegalArgumentException(
            "Shape " + Arrays.toString(dims) + " has more than " + Long.MAX_VALUE + " elements");
      }
    }
  }

  /** Converts extents given as longs (as Caffe reports them); each must fit in an int. */
  public static Shape ofLongs(long... dims) {
    if (dims == null) {
      throw new IllegalArgumentException("Shape dimensions must not be null");
    }
    int[] d = new int[dims.length];
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 0 || dims[i] > Integer.MAX_VALUE) {
        throw new IllegalArgumentException(
            "Shape " + Arrays.toString(dims) + " has an out-of-range extent at dimension " + i);
      }
      d[i] = (int) dims[i];
    }
    checkSizeFits(d);
    return new Shape(d);
  }

  public int rank() {
    return dims.length;
  }

  public int dim(int axis) {
    if (axis < 0 || axis >= dims.length) {
      throw new IndexOutOfBoundsException("Axis " + axis + " is outside shape " + this);
    }
    return dims[axis];
  }

  /** A copy of the extents. */
  public int[] dims() {
    return dims.clone();
  }

  /** Number of elements: the product of the extents (1 for a scalar of rank 0). */
  public long size() {
    long n = 1;
    for (int d : dims) {
      n *= d;
    }
    return n;
  }

  /** Row-major (C order) strides in elements. */
  public long[] contiguousStrides() {
    long[] strides = new long[dims.length];
    long s = 1;
    for (int i = dims.length - 1; i >= 0; i--) {
      strides[i] = s;
      s *= dims[i];
    }
    return strides;
  }

  /** A deserialized shape is validated like one built by {@link #of}. */
  private void readObject(ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (dims == null) {
      throw new InvalidObjectException("Serialized Shape has no dimensions");
    }
  }

  private Object readResolve() throws InvalidObjectException {
    try {
      return Shape.of(dims);
    } catch (IllegalArgumentException e) {
      throw new InvalidObjectException("Serialized shape is invalid: " + e.getMessage());
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Shape && Arrays.equals(dims, ((Shape) o).dims);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(dims);
  }

  @Override
  public String toString() {
    return Arrays.toString(dims);
  }
}
