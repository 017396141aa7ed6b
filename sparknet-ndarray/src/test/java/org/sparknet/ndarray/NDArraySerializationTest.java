package org.sparknet.ndarray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.sparknet.ndarray.kryo.NDArraySerializer;
import org.sparknet.ndarray.kryo.ShapeSerializer;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/** Round trips carry shape and contents; the receiver gets a new owning array to close. */
class NDArraySerializationTest {

  static byte[] javaWrite(Object o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }

  static Object javaRead(byte[] b) throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
      return in.readObject();
    }
  }

  static Kryo kryo() {
    Kryo k = new Kryo();
    k.setRegistrationRequired(true);
    k.register(Shape.class, new ShapeSerializer());
    k.register(NDArray.class, new NDArraySerializer());
    return k;
  }

  static float[] random(int n) {
    Random rnd = new Random(n);
    float[] a = new float[n];
    for (int i = 0; i < n; i++) {
      a[i] = (float) rnd.nextGaussian();
    }
    a[0] = Float.NaN;
    a[n - 1] = Float.NEGATIVE_INFINITY;
    return a;
  }

  @Test
  void javaRoundTripOfOwnerAndViewMakesNewOwningArrays() throws Exception {
    long blocks = Storage.liveOwnedBlocks();
    try (NDArray a = NDArray.create(random(60), 3, 4, 5)) {
      NDArray view = a.slice(2, 1); // strided: [3, 4]
      try (NDArray back = (NDArray) javaRead(javaWrite(a));
          NDArray viewBack = (NDArray) javaRead(javaWrite(view))) {
        assertEquals(blocks + 3, Storage.liveOwnedBlocks(), "two new owners");
        assertTrue(back.isOwner());
        assertTrue(viewBack.isOwner() && viewBack.isContiguous());
        NDAssert.assertAllClose(a, back, Tolerance.EXACT);
        NDAssert.assertAllClose(view, viewBack, Tolerance.EXACT);
        back.set(42f, 0, 0, 0);
        assertTrue(Float.isNaN(a.get(0, 0, 0)), "no memory is shared with the original");
      }
    }
    assertEquals(blocks, Storage.liveOwnedBlocks());
  }

  @Test
  void javaSerializingAClosedArrayFails() {
    NDArray a = NDArray.zeros(2);
    a.close();
    assertThrows(IllegalStateException.class, () -> javaWrite(a));
  }

  @Test
  void shapeJavaRoundTripAndValidation() throws Exception {
    assertEquals(Shape.of(2, 0, 3), javaRead(javaWrite(Shape.of(2, 0, 3))));
    assertEquals(Shape.of(), javaRead(javaWrite(Shape.of())));
  }

  @Test
  void kryoRoundTripLargerThanOneChunk() {
    Kryo kryo = kryo();
    int n = 40_000; // > 2 chunks of 16,384 floats, and a partial one
    try (NDArray a = NDArray.create(random(n), 200, 200)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (Output out = new Output(bytes)) {
        kryo.writeObject(out, a);
        kryo.writeObject(out, a.slice(1, 7)); // a strided view
        kryo.writeObject(out, Shape.of(4, 5));
      }
      // per object: Kryo's reference marker (1 byte), the shape as varints, 4 bytes per float
      assertEquals((1 + 1 + 2 + 2 + 4 * n) + (1 + 1 + 2 + 4 * 200) + (1 + 1 + 1 + 1), bytes.size());
      try (Input in = new Input(bytes.toByteArray());
          NDArray back = kryo.readObject(in, NDArray.class);
          NDArray column = kryo.readObject(in, NDArray.class)) {
        assertNotSame(a, back);
        assertTrue(back.isOwner());
        NDAssert.assertAllClose(a, back, Tolerance.EXACT);
        NDAssert.assertAllClose(a.slice(1, 7), column, Tolerance.EXACT);
        assertEquals(Shape.of(4, 5), kryo.readObject(in, Shape.class));
      }
      try (NDArray copy = kryo.copy(a)) {
        NDAssert.assertAllClose(a, copy, Tolerance.EXACT);
      }
    }
  }

  @Test
  void kryoTruncatedStreamFailsWithoutLeaking() {
    Kryo kryo = kryo();
    byte[] bytes;
    try (NDArray a = NDArray.create(random(100), 10, 10)) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      try (Output out = new Output(b)) {
        kryo.writeObject(out, a);
      }
      bytes = java.util.Arrays.copyOf(b.toByteArray(), 200);
    }
    long blocks = Storage.liveOwnedBlocks();
    assertThrows(KryoException.class, () -> kryo.readObject(new Input(bytes), NDArray.class));
    assertEquals(blocks, Storage.liveOwnedBlocks(), "the half-read array was closed");
  }

  @Test
  void kryoRejectsACorruptShape() {
    Output out = new Output(16);
    out.writeVarInt(2, true);
    out.writeVarInt(3, true);
    out.writeVarInt(-1, true); // a negative extent
    KryoException e =
        assertThrows(
            KryoException.class, () -> ShapeSerializer.readShape(new Input(out.toBytes())));
    assertEquals(
        "Corrupt Shape: Shape [3, -1] has a negative extent at dimension 1", e.getMessage());
  }
}
