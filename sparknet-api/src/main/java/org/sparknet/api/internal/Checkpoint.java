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
import org.sparknet.ndarray.Shape;

/**
 * A trainer's state after a completed round, stored under a Hadoop path: the weights (the centre
 * for elastic averaging), the round, the iteration, the seed and each partition's data position.
 * Written to a temporary file and renamed, so a crash leaves the last complete checkpoint; the
 * newest two are kept ({@code round-000012.ckpt}).
 *
 * <p>Not stored (the Net SPI does not expose them): the workers' solver state (momentum history,
 * the iteration that drives the learning-rate policy) and, for elastic averaging, the workers' own
 * weights. A resumed run restarts them; it equals an uninterrupted one exactly for plain SGD
 * without momentum and a fixed learning rate.
 */
public record Checkpoint(
    String fingerprint,
    int round,
    long iteration,
    long seed,
    long[] positions,
    WeightLayout layout,
    float[] weights) {

  private static final int MAGIC = 0x53504e4b; // "SPNK"
  private static final int VERSION = 1;
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
      out.writeInt(weights.length);
      ByteBuffer buf = ByteBuffer.allocate(weights.length * 4).order(ByteOrder.BIG_ENDIAN);
      buf.asFloatBuffer().put(weights);
      out.write(buf.array());
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
      if (version != VERSION) {
        throw new IOException(p + " has checkpoint version " + version + ", expected " + VERSION);
      }
      String fingerprint = in.readUTF();
      int round = in.readInt();
      long iteration = in.readLong();
      long seed = in.readLong();
      long[] positions = new long[in.readInt()];
      for (int i = 0; i < positions.length; i++) {
        positions[i] = in.readLong();
      }
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
      byte[] bytes = new byte[Math.multiplyExact(in.readInt(), 4)];
      in.readFully(bytes);
      float[] w = new float[bytes.length / 4];
      ByteBuffer.wrap(bytes).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(w);
      return new Checkpoint(
          fingerprint, round, iteration, seed, positions, WeightLayout.of(layers, shapes), w);
    }
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
        + "}";
  }
}
