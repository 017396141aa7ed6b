package org.sparknet.api.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultArraySerializers;
import java.io.ByteArrayOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bulk array serializers round-trip every length (across the 64 KB staging buffer's edges,
 * through a 4 KB Kryo buffer that flushes to a stream) and write exactly the bytes of Kryo's own
 * element-by-element serializers, so either side may use either. Mutations seen red: floats staged
 * little-endian (bytes differ from Kryo's from index 1), one staged short zeroed per chunk (index 3
 * differs), a null written as an empty array (read back as []).
 */
class BulkArraysTest {

  private static <T> byte[] write(Serializer<T> s, T value) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (Output out = new Output(bytes, 4096)) {
      s.write(new Kryo(), out, value);
    }
    return bytes.toByteArray();
  }

  private static <T> T read(Serializer<T> s, byte[] bytes, Class<T> type) {
    try (Input in = new Input(new java.io.ByteArrayInputStream(bytes), 4096)) {
      return s.read(new Kryo(), in, type);
    }
  }

  private static float[] floats(int n) {
    SplittableRandom r = new SplittableRandom(n);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) (r.nextGaussian() * Math.pow(10, r.nextInt(-30, 30)));
    }
    return a;
  }

  @ParameterizedTest(name = "{0} floats")
  @ValueSource(ints = {0, 1, 3, 16383, 16384, 16385, 100_001})
  void floatsRoundTripAndMatchKryosOwnBytes(int n) {
    float[] a = floats(n);
    BulkArrays.FloatArraySerializer bulk = new BulkArrays.FloatArraySerializer();
    byte[] ours = write(bulk, a);
    assertArrayEquals(write(new DefaultArraySerializers.FloatArraySerializer(), a), ours);
    assertArrayEquals(a, read(bulk, ours, float[].class));
  }

  @ParameterizedTest(name = "{0} shorts")
  @ValueSource(ints = {0, 1, 32767, 32768, 32769, 100_001})
  void shortsRoundTripAndMatchKryosOwnBytes(int n) {
    short[] a = new short[n];
    SplittableRandom r = new SplittableRandom(n);
    for (int i = 0; i < n; i++) {
      a[i] = (short) r.nextInt();
    }
    BulkArrays.ShortArraySerializer bulk = new BulkArrays.ShortArraySerializer();
    byte[] ours = write(bulk, a);
    assertArrayEquals(write(new DefaultArraySerializers.ShortArraySerializer(), a), ours);
    assertArrayEquals(a, read(bulk, ours, short[].class));
  }

  @Test
  void nullArraysRoundTrip() {
    BulkArrays.FloatArraySerializer f = new BulkArrays.FloatArraySerializer();
    assertNull(read(f, write(f, null), float[].class));
    BulkArrays.ShortArraySerializer s = new BulkArrays.ShortArraySerializer();
    assertNull(read(s, write(s, null), short[].class));
  }
}
