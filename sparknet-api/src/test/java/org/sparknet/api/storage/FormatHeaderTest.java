package org.sparknet.api.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightsFile;
import org.sparknet.ndarray.Shape;

/**
 * The header shared by the weights file and the checkpoint. A build whose check compared the
 * version with the magic number gave "has weights file version 1; this SparkNet reads 1" for a good
 * file.
 */
class FormatHeaderTest {
  private static final FormatHeader HEADER = new FormatHeader(0x534e5743, 1, "weights file");

  private static DataInputStream bytes(int magic, int version) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      out.writeInt(magic);
      out.writeInt(version);
    }
    return new DataInputStream(new ByteArrayInputStream(b.toByteArray()));
  }

  @Test
  void whatItWritesItAccepts() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      HEADER.write(out);
    }
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(b.toByteArray()));
    assertNull(HEADER.mismatch(in, "w.bin"));
  }

  @Test
  void anotherMagicOrVersionIsNamed() throws IOException {
    assertEquals(
        "w.bin is not a SparkNet weights file", HEADER.mismatch(bytes(0x53504e4b, 1), "w.bin"));
    assertEquals(
        "w.bin has weights file version 2; this SparkNet reads 1",
        HEADER.mismatch(bytes(0x534e5743, 2), "w.bin"));
  }

  /** The weights file reports a newer version as bad input naming the source. */
  @Test
  void weightsFileRejectsAnotherVersion() {
    WeightCollection w =
        new WeightCollection()
            .put("ip", List.of(new WeightCollection.Tensor(Shape.of(2), new float[] {1, 2})));
    byte[] encoded = WeightsFile.encode(w);
    assertEquals(1, WeightsFile.decode(encoded, "ok.weights").numLayers());
    ByteBuffer.wrap(encoded).putInt(4, 7);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WeightsFile.decode(encoded, "new.bin"));
    assertEquals("new.bin has weights file version 7; this SparkNet reads 1", e.getMessage());
  }
}
