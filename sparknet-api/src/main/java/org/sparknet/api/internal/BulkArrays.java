package org.sparknet.api.internal;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.nio.ByteBuffer;

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

  /** Writes {@code a[from..to)} as big-endian floats (no count). */
  public static void writeFloats(Output out, float[] a, int from, int to) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / Float.BYTES;
    for (int at = from; at < to; at += per) {
      int n = Math.min(per, to - at);
      b.clear();
      b.asFloatBuffer().put(a, at, n);
      out.writeBytes(b.array(), 0, n * Float.BYTES);
    }
  }

  /** Reads big-endian floats into {@code a[from..to)}. */
  public static void readFloats(Input in, float[] a, int from, int to) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / Float.BYTES;
    for (int at = from; at < to; at += per) {
      int n = Math.min(per, to - at);
      in.readBytes(b.array(), 0, n * Float.BYTES);
      b.clear();
      b.asFloatBuffer().get(a, at, n);
    }
  }

  /** Writes {@code a} as big-endian shorts (no count). */
  public static void writeShorts(Output out, short[] a) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / Short.BYTES;
    for (int at = 0; at < a.length; at += per) {
      int n = Math.min(per, a.length - at);
      b.clear();
      b.asShortBuffer().put(a, at, n);
      out.writeBytes(b.array(), 0, n * Short.BYTES);
    }
  }

  /** Reads big-endian shorts into all of {@code a}. */
  public static void readShorts(Input in, short[] a) {
    ByteBuffer b = BUFFER.get();
    int per = STAGING / Short.BYTES;
    for (int at = 0; at < a.length; at += per) {
      int n = Math.min(per, a.length - at);
      in.readBytes(b.array(), 0, n * Short.BYTES);
      b.clear();
      b.asShortBuffer().get(a, at, n);
    }
  }

  /** Reads a count written as Kryo's arrays write it (length + 1, 0 for null). */
  private static int readCount(Input in, String what) {
    int n = in.readVarInt(true) - 1;
    if (n < -1) {
      throw new KryoException("Corrupt " + what + ": length " + n);
    }
    return n;
  }

  /** {@code float[]}: Kryo's format, bulk copies. */
  public static final class FloatArraySerializer extends Serializer<float[]> {
    public FloatArraySerializer() {
      super(true, false);
    }

    @Override
    public void write(Kryo kryo, Output out, float[] a) {
      if (a == null) {
        out.writeVarInt(0, true);
        return;
      }
      out.writeVarInt(a.length + 1, true);
      writeFloats(out, a, 0, a.length);
    }

    @Override
    public float[] read(Kryo kryo, Input in, Class<float[]> type) {
      int n = readCount(in, "float[]");
      if (n < 0) {
        return null;
      }
      float[] a = new float[n];
      readFloats(in, a, 0, n);
      return a;
    }

    @Override
    public float[] copy(Kryo kryo, float[] original) {
      return original.clone();
    }
  }

  /** {@code short[]}: Kryo's format, bulk copies. */
  public static final class ShortArraySerializer extends Serializer<short[]> {
    public ShortArraySerializer() {
      super(true, false);
    }

    @Override
    public void write(Kryo kryo, Output out, short[] a) {
      if (a == null) {
        out.writeVarInt(0, true);
        return;
      }
      out.writeVarInt(a.length + 1, true);
      writeShorts(out, a);
    }

    @Override
    public short[] read(Kryo kryo, Input in, Class<short[]> type) {
      int n = readCount(in, "short[]");
      if (n < 0) {
        return null;
      }
      short[] a = new short[n];
      readShorts(in, a);
      return a;
    }

    @Override
    public short[] copy(Kryo kryo, short[] original) {
      return original.clone();
    }
  }
}
