package org.sparknet.ndarray;

import java.io.InvalidObjectException;
import java.io.Serializable;

/**
 * How an {@link NDArray} travels through Java serialization: its shape and a heap copy of its
 * elements, row-major. The array itself holds native memory, which cannot be serialized.
 */
final class NDArraySerialForm implements Serializable {
  private static final long serialVersionUID = 1L;
  private final Shape shape;
  private final float[] data;

  NDArraySerialForm(Shape shape, float[] data) {
    this.shape = shape;
    this.data = data;
  }

  /** A new owning array: the receiver must close it. */
  private Object readResolve() throws InvalidObjectException {
    if (shape == null || data == null || data.length != shape.size()) {
      throw new InvalidObjectException(
          "Serialized NDArray of shape "
              + shape
              + " carries "
              + (data == null ? "no data" : data.length + " floats"));
    }
    return NDArray.create(data, shape.dims());
  }
}
