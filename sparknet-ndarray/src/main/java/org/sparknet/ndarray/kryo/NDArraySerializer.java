package org.sparknet.ndarray.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Writes an {@link NDArray}'s contents: its shape, then its elements in row-major order (a view
 * writes the elements it sees). Native memory never crosses the wire: {@link #read} allocates a new
 * owning, contiguous array, which the caller must close.
 *
 * <p>Elements move through a small heap buffer ({@value #CHUNK} floats), so serializing a large
 * array never makes a heap copy of it.
 */
public final class NDArraySerializer extends Serializer<NDArray> {
  static final int CHUNK = 1 << 14;

  public NDArraySerializer() {
    super(false, false);
  }

  /** Throws IllegalStateException if the array is closed. */
  @Override
  public void write(Kryo kryo, Output output, NDArray array) {
    array.checkOpen();
    ShapeSerializer.writeShape(output, array.shape());
    long size = array.size();
    if (size == 0) {
      return;
    }
    if (size > Integer.MAX_VALUE) {
      throw new KryoException("NDArray of shape " + array.shape() + " is too large to serialize");
    }
    if (array.isContiguous()) {
      NDArray flat = array.reshape((int) size);
      float[] chunk = new float[(int) Math.min(CHUNK, size)];
      for (int off = 0; off < size; off += chunk.length) {
        int len = (int) Math.min(chunk.length, size - off);
        float[] buf = len == chunk.length ? chunk : new float[len];
        flat.subArray(new int[] {off}, new int[] {len}).copyTo(buf);
        output.writeFloats(buf);
      }
    } else {
      output.writeFloats(array.toArray()); // strided views are small in practice
    }
  }

  /** A new owning array: the caller must close it. */
  @Override
  public NDArray read(Kryo kryo, Input input, Class<NDArray> type) {
    Shape shape = ShapeSerializer.readShape(input);
    if (shape.size() > Integer.MAX_VALUE) {
      throw new KryoException("Corrupt NDArray: shape " + shape + " is too large");
    }
    int size = (int) shape.size();
    NDArray array = NDArray.zeros(shape.dims());
    try {
      NDArray flat = array.reshape(size);
      for (int off = 0; off < size; off += CHUNK) {
        int len = Math.min(CHUNK, size - off);
        flat.subArray(new int[] {off}, new int[] {len}).copyFrom(input.readFloats(len));
      }
      return array;
    } catch (RuntimeException e) {
      array.close(); // a truncated stream must not leak native memory
      throw e;
    }
  }

  /** A new owning array with the same contents: the caller must close it. */
  @Override
  public NDArray copy(Kryo kryo, NDArray original) {
    original.checkOpen();
    NDArray copy = NDArray.zeros(original.shape().dims());
    copy.copyFrom(original);
    return copy;
  }
}
