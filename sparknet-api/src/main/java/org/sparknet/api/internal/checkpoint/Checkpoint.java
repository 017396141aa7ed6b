package org.sparknet.api.internal.checkpoint;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import org.sparknet.api.SolverState;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.storage.FormatHeader;
import org.sparknet.ndarray.Shape;

/**
 * A trainer's state after a completed round: the weights (the centre, for elastic averaging), the
 * round, the iteration, the seed and each partition's data position; when the engine exports it
 * ({@link org.sparknet.api.Net#hasSolverState()}), each partition's solver state (iteration and
 * momentum or other history), so that a resumed run continues momentum and the learning-rate policy
 * exactly; and for elastic averaging each worker's own weights. {@link CheckpointDir} keeps them on
 * a Hadoop file system.
 *
 * <p>The bytes end with a CRC-32 of everything before it, so a checkpoint cut short by a crash (on
 * a file system without atomic rename) is detected and never read back.
 *
 * @param solverStates one entry per partition (null for a partition without a net); null when the
 *     engine has no solver state
 * @param workerWeights elastic averaging: each partition's own weights (null entry: no net); null
 *     for plain averaging
 */
public record Checkpoint(
    String fingerprint,
    int round,
    long iteration,
    long seed,
    long[] positions,
    WeightLayout layout,
    float[] weights,
    SolverState[] solverStates,
    float[][] workerWeights) {

  private static final FormatHeader HEADER =
      new FormatHeader(0x53504e4b, 3, "checkpoint"); // "SPNK"

  /** Writes the checkpoint, CRC trailer included, to {@code raw} (not closed). */
  void encode(OutputStream raw) throws IOException {
    CRC32 crc = new CRC32();
    DataOutputStream out = new DataOutputStream(new CheckedOutputStream(raw, crc));
    HEADER.write(out);
    out.writeUTF(fingerprint);
    out.writeInt(round);
    out.writeLong(iteration);
    out.writeLong(seed);
    out.writeInt(positions.length);
    for (long p : positions) {
      out.writeLong(p);
    }
    writeLayout(out, layout);
    writeFloats(out, weights);
    writeSolverStates(out, solverStates);
    out.writeInt(workerWeights == null ? -1 : workerWeights.length);
    if (workerWeights != null) {
      for (float[] w : workerWeights) {
        out.writeBoolean(w != null);
        if (w != null) {
          writeFloats(out, w);
        }
      }
    }
    out.flush();
    new DataOutputStream(raw).writeLong(crc.getValue());
  }

  private static void writeSolverStates(DataOutputStream out, SolverState[] states)
      throws IOException {
    out.writeInt(states == null ? -1 : states.length);
    if (states == null) {
      return;
    }
    for (SolverState st : states) {
      out.writeBoolean(st != null);
      if (st != null) {
        out.writeLong(st.iteration());
        WeightLayout hl = WeightLayout.of(st.history());
        writeLayout(out, hl);
        writeFloats(out, hl.flatten(st.history()));
      }
    }
  }

  /**
   * Reads a checkpoint written by {@link #encode}.
   *
   * @param source names the bytes in errors
   * @throws IOException when the bytes are not a complete checkpoint (wrong magic or version, cut
   *     short, or a CRC that does not match)
   */
  static Checkpoint decode(InputStream raw, String source) throws IOException {
    CRC32 crc = new CRC32();
    DataInputStream in = new DataInputStream(new CheckedInputStream(raw, crc));
    String mismatch = HEADER.mismatch(in, source);
    if (mismatch != null) {
      throw new IOException(mismatch);
    }
    String fingerprint = in.readUTF();
    int round = in.readInt();
    long iteration = in.readLong();
    long seed = in.readLong();
    long[] positions = new long[in.readInt()];
    for (int i = 0; i < positions.length; i++) {
      positions[i] = in.readLong();
    }
    WeightLayout layout = readLayout(in);
    float[] w = readFloats(in, layout.size(), source);
    SolverState[] states = readSolverStates(in, source);
    float[][] workers = null;
    int n = in.readInt();
    if (n >= 0) {
      workers = new float[n][];
      for (int i = 0; i < n; i++) {
        workers[i] = in.readBoolean() ? readFloats(in, layout.size(), source) : null;
      }
    }
    long expected = crc.getValue();
    if (new DataInputStream(raw).readLong() != expected) {
      throw new IOException(source + " is corrupt: its CRC does not match its contents");
    }
    return new Checkpoint(
        fingerprint, round, iteration, seed, positions, layout, w, states, workers);
  }

  private static SolverState[] readSolverStates(DataInputStream in, String source)
      throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    SolverState[] states = new SolverState[n];
    for (int i = 0; i < n; i++) {
      if (in.readBoolean()) {
        long it = in.readLong();
        WeightLayout hl = readLayout(in);
        states[i] = new SolverState(it, hl.toCollection(readFloats(in, hl.size(), source)));
      }
    }
    return states;
  }

  private static void writeLayout(DataOutputStream out, WeightLayout layout) throws IOException {
    out.writeInt(layout.layers().size());
    for (int i = 0; i < layout.layers().size(); i++) {
      out.writeUTF(layout.layers().get(i));
      List<Shape> shapes = layout.shapes().get(i);
      out.writeInt(shapes.size());
      for (Shape s : shapes) {
        out.writeInt(s.rank());
        for (int dim : s.dims()) {
          out.writeInt(dim);
        }
      }
    }
  }

  private static WeightLayout readLayout(DataInputStream in) throws IOException {
    int nLayers = in.readInt();
    List<String> layers = new ArrayList<>();
    List<List<Shape>> shapes = new ArrayList<>();
    for (int i = 0; i < nLayers; i++) {
      layers.add(in.readUTF());
      int nArrays = in.readInt();
      List<Shape> l = new ArrayList<>();
      for (int a = 0; a < nArrays; a++) {
        int[] dims = new int[in.readInt()];
        for (int k = 0; k < dims.length; k++) {
          dims[k] = in.readInt();
        }
        l.add(Shape.of(dims));
      }
      shapes.add(l);
    }
    return WeightLayout.of(layers, shapes);
  }

  /** Floats per write and read: large nets are copied through a small buffer. */
  private static final int CHUNK = 1 << 18;

  private static void writeFloats(DataOutputStream out, float[] values) throws IOException {
    out.writeInt(values.length);
    ByteBuffer buf = ByteBuffer.allocate(CHUNK * 4).order(ByteOrder.BIG_ENDIAN);
    for (int at = 0; at < values.length; at += CHUNK) {
      int n = Math.min(CHUNK, values.length - at);
      buf.clear();
      buf.asFloatBuffer().put(values, at, n);
      out.write(buf.array(), 0, n * 4);
    }
  }

  private static float[] readFloats(DataInputStream in, int expected, String source)
      throws IOException {
    int n = in.readInt();
    if (n != expected) {
      throw new IOException(source + " is corrupt: " + n + " floats where " + expected + " belong");
    }
    float[] w = new float[n];
    byte[] bytes = new byte[CHUNK * 4];
    for (int at = 0; at < n; at += CHUNK) {
      int k = Math.min(CHUNK, n - at);
      in.readFully(bytes, 0, k * 4);
      ByteBuffer.wrap(bytes, 0, k * 4).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(w, at, k);
    }
    return w;
  }

  @Override
  public String toString() {
    return "Checkpoint{round "
        + round
        + ", iteration "
        + iteration
        + ", positions "
        + Arrays.toString(positions)
        + ", "
        + layout
        + (solverStates == null ? "" : ", " + solverStates.length + " solver states")
        + (workerWeights == null ? "" : ", " + workerWeights.length + " worker weights")
        + "}";
  }
}
