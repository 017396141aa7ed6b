package org.sparknet.ndarray.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.sparknet.ndarray.Shape;

/** Writes a {@link Shape} as its rank and extents; reading validates like {@link Shape#of}. */
public final class ShapeSerializer extends Serializer<Shape> {
  /** Ranks above this are rejected on read: they can only come from a corrupt stream. */
  static final int MAX_RANK = 64;

  public ShapeSerializer() {
    super(false, true); // no nulls; shapes are immutable
  }

  @Override
  public void write(Kryo kryo, Output output, Shape shape) {
    writeShape(output, shape);
  }

  @Override
  public Shape read(Kryo kryo, Input input, Class<Shape> type) {
    return readShape(input);
  }

  /** Rank then extents, as variable-length non-negative ints. */
  public static void writeShape(Output output, Shape shape) {
    output.writeVarInt(shape.rank(), true);
    for (int i = 0; i < shape.rank(); i++) {
      output.writeVarInt(shape.dim(i), true);
    }
  }

  /** Reads what {@link #writeShape} wrote; throws KryoException on a corrupt shape. */
  public static Shape readShape(Input input) {
    int rank = input.readVarInt(true);
    if (rank < 0 || rank > MAX_RANK) {
      throw new KryoException("Corrupt Shape: rank " + rank + " (expected 0.." + MAX_RANK + ")");
    }
    int[] dims = new int[rank];
    for (int i = 0; i < rank; i++) {
      dims[i] = input.readVarInt(true);
    }
    try {
      return Shape.of(dims);
    } catch (IllegalArgumentException e) {
      throw new KryoException("Corrupt Shape: " + e.getMessage(), e);
    }
  }
}
