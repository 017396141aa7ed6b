package org.sparknet.api.internal;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sparknet.api.SolverState;
import org.sparknet.ndarray.Shape;

/**
 * A trainer's state after a completed round, stored under a Hadoop path: the weights (the centre
 * for elastic averaging), the round, the iteration, the seed and each partition's data position.
 * Written to a temporary file and renamed, so a crash leaves the last complete checkpoint; the
 * newest two are kept ({@code round-000012.ckpt}).
 *
 * <p>When the engine exports it ({@link org.sparknet.api.Net#hasSolverState()}), each partition's
 * solver state (iteration and momentum or other history) is stored too, so a resumed run continues
 * momentum and the learning-rate policy exactly ({@code solverStates}: one entry per partition,
 * null for a partition without a net; null when the engine has no solver state). Not stored: for
 * elastic averaging, the workers' own weights, and an engine's random-number state (dropout), so
 * those runs do not resume bit for bit.
 */
public record Checkpoint(
    String fingerprint,
    int round,
    long iteration,
    long seed,
    long[] positions,
    WeightLayout layout,
    float[] weights,
    SolverState[] solverStates) {

  private static final int MAGIC = 0x53504e4b; // "SPNK"
  private static final int VERSION = 2;

  /** A checkpoint without solver states. */
  public Checkpoint(
      String fingerprint,
      int round,
      long iteration,
      long seed,
      long[] positions,
      WeightLayout layout,
      float[] weights) {
    this(fingerprint, round, iteration, seed, positions, layout, weights, null);
  }

  private static final Pattern NAME = Pattern.compile("round-(\\d{6,})\\.ckpt");

  /** Writes this checkpoint into {@code dir}; keeps the previous one, deletes older ones. */
  public void write(String dir, Configuration conf) throws IOException {
    Path d = new Path(dir);
    FileSystem fs = d.getFileSystem(conf);
    fs.mkdirs(d);
    String name = String.format("round-%06d.ckpt", round);
    Path tmp = new Path(d, "_" + name + ".tmp");
    Path target = new Path(d, name);
    try (FSDataOutputStream raw = fs.create(tmp, true);
        DataOutputStream out = new DataOutputStream(raw)) {
      out.writeInt(MAGIC);
      out.writeInt(VERSION);
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
      out.writeInt(solverStates == null ? -1 : solverStates.length);
      if (solverStates != null) {
        for (SolverState st : solverStates) {
          out.writeBoolean(st != null);
          if (st != null) {
            out.writeLong(st.iteration());
            WeightLayout hl = WeightLayout.of(st.history());
            writeLayout(out, hl);
            writeFloats(out, hl.flatten(st.history()));
          }
        }
      }
    }
    if (fs.exists(target)) {
      fs.delete(target, false);
    }
    if (!fs.rename(tmp, target)) {
      throw new IOException("Could not rename " + tmp + " to " + target);
    }
    List<Integer> rounds = rounds(fs, d);
    for (int i = 0; i + 2 < rounds.size(); i++) {
      fs.delete(new Path(d, String.format("round-%06d.ckpt", rounds.get(i))), false);
    }
  }

  /** Rounds of the complete checkpoints in {@code d}, ascending. */
  private static List<Integer> rounds(FileSystem fs, Path d) throws IOException {
    List<Integer> rounds = new ArrayList<>();
    if (!fs.exists(d)) {
      return rounds;
    }
    for (FileStatus st : fs.listStatus(d)) {
      Matcher m = NAME.matcher(st.getPath().getName());
      if (m.matches()) {
        rounds.add(Integer.parseInt(m.group(1)));
      }
    }
    rounds.sort(null);
    return rounds;
  }

  /**
   * The newest readable checkpoint in {@code dir}, or null when there is none. A newest one that
   * cannot be read (truncated) is skipped for the one before it.
   */
  public static Checkpoint readLatest(String dir, Configuration conf) throws IOException {
    Path d = new Path(dir);
    FileSystem fs = d.getFileSystem(conf);
    List<Integer> rounds = rounds(fs, d);
    IOException failure = null;
    for (int i = rounds.size() - 1; i >= 0; i--) {
      Path p = new Path(d, String.format("round-%06d.ckpt", rounds.get(i)));
      try {
        return read(fs, p);
      } catch (IOException e) {
        if (failure == null) {
          failure = e;
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return null;
  }

  private static Checkpoint read(FileSystem fs, Path p) throws IOException {
    try (FSDataInputStream raw = fs.open(p);
        DataInputStream in = new DataInputStream(raw)) {
      if (in.readInt() != MAGIC) {
        throw new IOException(p + " is not a SparkNet checkpoint");
      }
      int version = in.readInt();
      if (version != 1 && version != VERSION) {
        throw new IOException(
            p + " has checkpoint version " + version + ", expected 1 to " + VERSION);
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
      float[] w = readFloats(in, layout, p);
      SolverState[] states = null;
      if (version >= 2) {
        int n = in.readInt();
        if (n >= 0) {
          states = new SolverState[n];
          for (int i = 0; i < n; i++) {
            if (in.readBoolean()) {
              long it = in.readLong();
              WeightLayout hl = readLayout(in);
              states[i] = new SolverState(it, hl.toCollection(readFloats(in, hl, p)));
            }
          }
        }
      }
      return new Checkpoint(fingerprint, round, iteration, seed, positions, layout, w, states);
    }
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

  private static void writeFloats(DataOutputStream out, float[] values) throws IOException {
    out.writeInt(values.length);
    ByteBuffer buf = ByteBuffer.allocate(values.length * 4).order(ByteOrder.BIG_ENDIAN);
    buf.asFloatBuffer().put(values);
    out.write(buf.array());
  }

  private static float[] readFloats(DataInputStream in, WeightLayout layout, Path p)
      throws IOException {
    int n = in.readInt();
    if (n != layout.size()) {
      throw new IOException(p + " is corrupt: " + n + " floats for " + layout);
    }
    byte[] bytes = new byte[Math.multiplyExact(n, 4)];
    in.readFully(bytes);
    float[] w = new float[n];
    ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(w);
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
        + "}";
  }
}
