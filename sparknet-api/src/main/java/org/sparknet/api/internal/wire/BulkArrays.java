package org.sparknet.api.internal.wire;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * {@code float[]} and {@code short[]} on the wire at memory speed. Kryo 4's own array serializers
 * (Spark's default) write and read one element at a time through bounds-checked calls, several
 * times slower than a copy for the weights of a large net; these convert through a small staging
 * buffer with the JDK's bulk {@code FloatBuffer}/{@code ShortBuffer} copies instead, and write the
 * bytes Kryo's own serializers write (a variable-length count plus one, then big-endian elements),
 * so either side may use either serializer. {@link TrainerKryoClasses} registers them for {@code
 * float[]} and {@code short[]}, which every SparkNet class that holds such arrays goes through.
 */
public final class BulkArrays {
  /** Bytes of the per-thread staging buffer: stays in the L1/L2 cache. */
  private static final int STAGING = 64 * 1024;

  private static final ThreadLocal<ByteBuffer> BUFFER =
      ThreadLocal.withInitial(() -> ByteBuffer.allocate(STAGING));

  private BulkArrays() {}

  /** Copies {@code n} elements from index {@code at} between an array and the staging buffer. */
  private interface Stage {
    void copy(ByteBuffer staging, int at, int n);
  }

  /** Writes elements {@code [from..to)} of {@code bytes} each, a staging buffer at a time. */
  private static void write(Output out, int from, int to, int bytes, Stage put) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / bytes;
    for (int at = from; at < to; at += per) {
      int n = Math.min(per, to - at);
      b.clear();
      put.copy(b, at, n);
      out.writeBytes(b.array(), 0, n * bytes);
    }
  }

  /** Reads elements {@code [from..to)} of {@code bytes} each, a staging buffer at a time. */
  private static void read(Input in, int from, int to, int bytes, Stage get) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / bytes;
    for (int at = from; at < to; at += per) {
      int n = Math.min(per, to - at);
      in.readBytes(b.array(), 0, n * bytes);
      b.clear();
      get.copy(b, at, n);
    }
  }

  /** Writes {@code a[from..to)} as big-endian floats (no count). */
  public static void writeFloats(Output out, float[] a, int from, int to) {
    write(out, from, to, Float.BYTES, (b, at, n) -> b.asFloatBuffer().put(a, at, n));
  }

  /** Reads big-endian floats into {@code a[from..to)}. */
  public static void readFloats(Input in, float[] a, int from, int to) {
    read(in, from, to, Float.BYTES, (b, at, n) -> b.asFloatBuffer().get(a, at, n));
  }

  /** Writes {@code a} as big-endian shorts (no count). */
  public static void writeShorts(Output out, short[] a) {
    write(out, 0, a.length, Short.BYTES, (b, at, n) -> b.asShortBuffer().put(a, at, n));
  }

  /** Reads big-endian shorts into all of {@code a}. */
  public static void readShorts(Input in, short[] a) {
    read(in, 0, a.length, Short.BYTES, (b, at, n) -> b.asShortBuffer().get(a, at, n));
  }

  /**
   * Kryo's array format around the bulk copies: the count plus one (0 for null), then the elements.
   */
  abstract static class ArraySerializer<A> extends Serializer<A> {
    private final String what;
    private final ToIntFunction<A> length;
    private final IntFunction<A> allocate;
    private final BiConsumer<Output, A> writeAll;
    private final BiConsumer<Input, A> readAll;

    ArraySerializer(
        String what,
        ToIntFunction<A> length,
        IntFunction<A> allocate,
        BiConsumer<Output, A> writeAll,
        BiConsumer<Input, A> readAll) {
      super(true, false);
      this.what = what;
      this.length = length;
      this.allocate = allocate;
      this.writeAll = writeAll;
      this.readAll = readAll;
    }

    @Override
    public final void write(Kryo kryo, Output out, A a) {
      if (a == null) {
        out.writeVarInt(0, true);
        return;
      }
      out.writeVarInt(length.applyAsInt(a) + 1, true);
      writeAll.accept(out, a);
    }

    @Override
    public final A read(Kryo kryo, Input in, Class<A> type) {
      int n = in.readVarInt(true) - 1;
      if (n < -1) {
        throw new KryoException("Corrupt " + what + ": length " + n);
      }
      if (n < 0) {
        return null;
      }
      A a = allocate.apply(n);
      readAll.accept(in, a);
      return a;
    }
  }

  /** {@code float[]}: Kryo's format, bulk copies. */
  public static final class FloatArraySerializer extends ArraySerializer<float[]> {
    public FloatArraySerializer() {
      super(
          "float[]",
          a -> a.length,
          float[]::new,
          (out, a) -> writeFloats(out, a, 0, a.length),
          (in, a) -> readFloats(in, a, 0, a.length));
    }

    @Override
    public float[] copy(Kryo kryo, float[] original) {
      return original.clone();
    }
  }

  /** {@code short[]}: Kryo's format, bulk copies. */
  public static final class ShortArraySerializer extends ArraySerializer<short[]> {
    public ShortArraySerializer() {
      super(
          "short[]", a -> a.length, short[]::new, BulkArrays::writeShorts, BulkArrays::readShorts);
    }

    @Override
    public short[] copy(Kryo kryo, short[] original) {
      return original.clone();
    }
  }
}
