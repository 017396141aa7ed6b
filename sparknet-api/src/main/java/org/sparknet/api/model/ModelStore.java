package org.sparknet.api.model;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.security.AccessControlException;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.storage.StoragePath;

/**
 * Writes and reads models on any Hadoop file system ({@code file:}, {@code hdfs:}, {@code s3a:},
 * plain paths): a weights file in the engine's own format (a Caffe {@code .caffemodel} that Caffe's
 * tools read; {@link NetProvider#encodeWeights}), and a model directory:
 *
 * <pre>
 *   DIR/definition/solver.prototxt   the solver text (and net.prototxt when separate): for people
 *   DIR/definition/net.prototxt      and the engine's own tools
 *   DIR/definition/net.properties    engine, example shape, seed and device: what the texts omit
 *   DIR/weights/&lt;engine file&gt;      the weights, e.g. weights.caffemodel
 * </pre>
 *
 * The Spark ML stages add Spark's {@code metadata/} and {@code history.jsonl} (one JSON line per
 * training round) to such a directory; {@code SparkNetTrainer.save} adds the trainer's state. A
 * file is written under a temporary name and renamed, so that a failed write leaves nothing that
 * reads as complete.
 */
public final class ModelStore {
  private static final String PROPERTIES = "net.properties";
  private final Configuration conf;

  public ModelStore(Configuration hadoopConf) {
    this.conf = hadoopConf;
  }

  /**
   * Writes {@code weights} in the engine's file format to {@code uri}.
   *
   * @throws IllegalArgumentException when the file exists and {@code overwrite} is false, or the
   *     weights do not fit the definition
   */
  public void writeWeights(
      NetDefinition def, WeightCollection weights, String uri, boolean overwrite) {
    byte[] bytes = NetProvider.forEngine(def.engine()).encodeWeights(def, weights);
    write(new Path(uri), bytes, overwrite);
  }

  /**
   * Reads a weights file written by {@link #writeWeights} (for Caffe, any {@code .caffemodel} of
   * the net).
   *
   * @throws IllegalArgumentException naming the URI when it is missing, unreadable, or not weights
   *     of this net
   */
  public WeightCollection readWeights(NetDefinition def, String uri) {
    byte[] bytes = read(new Path(uri));
    return NetProvider.forEngine(def.engine()).decodeWeights(def, bytes, uri);
  }

  /**
   * The layers of a weights file in the engine's format, for copying by layer name ({@link
   * NetProvider#readLayers}): the file need not cover the net.
   *
   * @throws IllegalArgumentException naming the URI when it is missing, unreadable, or not such a
   *     file
   */
  public WeightCollection readLayers(NetDefinition def, String uri) {
    byte[] bytes = read(new Path(uri));
    return NetProvider.forEngine(def.engine()).readLayers(def, bytes, uri);
  }

  /**
   * Writes {@code bytes} as file {@code name} of model directory {@code dir}, replacing it (the
   * Spark ML stages keep their training history there).
   */
  public void writeModelFile(String dir, String name, byte[] bytes) {
    write(new Path(new Path(dir), name), bytes, true);
  }

  /** The bytes of file {@code name} of model directory {@code dir}; empty when it has none. */
  public Optional<byte[]> readModelFile(String dir, String name) {
    Path file = new Path(new Path(dir), name);
    return exists(file) ? Optional.of(read(file)) : Optional.empty();
  }

  /** Writes a model directory (see the class comment); files already there are replaced. */
  public void writeModel(String dir, NetDefinition def, WeightCollection weights) {
    Path root = new Path(dir);
    NetProvider provider = NetProvider.forEngine(def.engine());
    byte[] bytes = provider.encodeWeights(def, weights);
    Path defDir = new Path(root, "definition");
    write(new Path(defDir, "solver.prototxt"), utf8(def.solverText()), true);
    if (def.netText() != null) {
      write(new Path(defDir, "net.prototxt"), utf8(def.netText()), true);
    }
    write(new Path(defDir, PROPERTIES), DefinitionProperties.encode(def), true);
    write(weightsFile(root, provider), bytes, true);
  }

  /**
   * The definition of a model directory written by {@link #writeModel}. A directory without {@code
   * net.properties} (written before there was one) is read as a net of the engine whose weights
   * file it holds, with seed 0 on the CPU, and no example shape.
   *
   * @throws IllegalArgumentException naming the directory when it is not a model directory
   */
  NetDefinition readDefinition(String dir) {
    Path defDir = new Path(new Path(dir), "definition");
    Path solver = new Path(defDir, "solver.prototxt");
    if (!exists(solver)) {
      throw new IllegalArgumentException(
          dir + " is not a model directory: it has no definition/solver.prototxt");
    }
    String solverText = new String(read(solver), StandardCharsets.UTF_8);
    Path net = new Path(defDir, "net.prototxt");
    String netText = exists(net) ? new String(read(net), StandardCharsets.UTF_8) : null;
    Path props = new Path(defDir, PROPERTIES);
    if (exists(props)) {
      return DefinitionProperties.decode(read(props), solverText, netText, props.toString());
    }
    for (String engine : NetProvider.engines()) {
      if (exists(weightsFile(new Path(dir), NetProvider.forEngine(engine)))) {
        return new NetDefinition(engine, solverText, netText, null, 0L, "cpu");
      }
    }
    throw new IllegalArgumentException(
        dir + " has no " + PROPERTIES + " and no weights file of an engine on the class path");
  }

  /** Whether {@code uri} names an existing file or directory. */
  boolean exists(String uri) {
    return exists(new Path(uri));
  }

  /** Writes {@code bytes} to the file {@code uri} (see {@link #writeWeights} for overwrite). */
  void writeFile(String uri, byte[] bytes, boolean overwrite) {
    write(new Path(uri), bytes, overwrite);
  }

  private boolean exists(Path p) {
    try {
      return p.getFileSystem(conf).exists(p);
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + p + ": " + e.getMessage(), e);
    }
  }

  /**
   * Reads the weights of a model directory written by {@link #writeModel}, checked against {@code
   * def}.
   *
   * @throws IllegalArgumentException naming the file when the directory has no weights of this net
   */
  public WeightCollection readModelWeights(String dir, NetDefinition def) {
    NetProvider provider = NetProvider.forEngine(def.engine());
    Path file = weightsFile(new Path(dir), provider);
    return provider.decodeWeights(def, read(file), file.toString());
  }

  private static Path weightsFile(Path root, NetProvider provider) {
    return new Path(new Path(root, "weights"), provider.weightsFileName());
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private void write(Path target, byte[] bytes, boolean overwrite) {
    try {
      FileSystem fs = target.getFileSystem(conf);
      if (!overwrite && fs.exists(target)) {
        throw new IllegalArgumentException(
            target + " already exists; choose another path or allow overwriting");
      }
      StoragePath.writeByRename(fs, target, out -> out.write(bytes));
    } catch (AccessControlException e) {
      throw new IllegalArgumentException(
          "No permission to write " + target + ": " + e.getMessage());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + target, e);
    }
  }

  private byte[] read(Path file) {
    try {
      FileSystem fs = file.getFileSystem(conf);
      try (InputStream in = fs.open(file)) {
        return in.readAllBytes();
      }
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException("No such file: " + file);
    } catch (AccessControlException e) {
      throw new IllegalArgumentException("No permission to read " + file + ": " + e.getMessage());
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
