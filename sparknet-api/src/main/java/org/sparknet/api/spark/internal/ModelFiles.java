package org.sparknet.api.spark.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.BiFunction;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.spark.SparkNetParams;

/**
 * The directory of a saved SparkNet model: {@code metadata/} (Spark ML's params JSON, as for every
 * stage), {@code weights/<engine file>} (the engine's weights file: a Caffe {@code .caffemodel}),
 * and {@code definition/solver.prototxt} and {@code net.prototxt} for people and for the engine's
 * own tools. Loading reads the params, rebuilds the definition from them and decodes the weights
 * with the engine, which checks that they fit the net.
 */
public final class ModelFiles {
  private ModelFiles() {}

  /** Writes a model's params and weights. */
  public static final class Writer extends MLWriter {
    private final SparkNetParams<?> stage;
    private final WeightCollection weights;

    public Writer(SparkNetParams<?> stage, WeightCollection weights) {
      this.stage = stage;
      this.weights = weights;
    }

    @Override
    public void saveImpl(String path) {
      DefaultParamsWriter.saveMetadata(stage, path, sparkSession());
      NetDefinition def = StageSupport.definition(stage);
      NetProvider provider = NetProvider.forEngine(def.engine());
      byte[] bytes = provider.encodeWeights(def, weights);
      try {
        Path root = new Path(path);
        FileSystem fs = root.getFileSystem(sparkSession().sparkContext().hadoopConfiguration());
        write(fs, new Path(new Path(root, "weights"), provider.weightsFileName()), bytes);
        Path defDir = new Path(root, "definition");
        write(fs, new Path(defDir, "solver.prototxt"), utf8(def.solverText()));
        if (def.netText() != null) {
          write(fs, new Path(defDir, "net.prototxt"), utf8(def.netText()));
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot save the SparkNet model to " + path, e);
      }
    }
  }

  /**
   * Reads a model saved by {@link Writer}: {@code create} makes a model of the saved uid from its
   * weights.
   */
  public static final class Reader<M extends SparkNetParams<M>> extends MLReader<M> {
    private final Class<M> type;
    private final BiFunction<String, WeightCollection, M> create;

    public Reader(Class<M> type, BiFunction<String, WeightCollection, M> create) {
      this.type = type;
      this.create = create;
    }

    @Override
    public M load(String path) {
      SparkSession spark = sparkSession();
      DefaultParamsReader.Metadata meta =
          DefaultParamsReader.loadMetadata(path, spark, type.getName());
      M paramsOnly = create.apply(meta.uid(), new WeightCollection());
      meta.getAndSetParams(paramsOnly, scala.Option.empty());
      NetDefinition def = StageSupport.definition(paramsOnly);
      NetProvider provider = NetProvider.forEngine(def.engine());
      Path file = new Path(new Path(new Path(path), "weights"), provider.weightsFileName());
      byte[] bytes;
      try {
        FileSystem fs = file.getFileSystem(spark.sparkContext().hadoopConfiguration());
        if (!fs.exists(file)) {
          throw new IllegalArgumentException(
              "The SparkNet model in " + path + " has no weights file " + file);
        }
        try (InputStream in = fs.open(file)) {
          bytes = in.readAllBytes();
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read the weights file " + file, e);
      }
      WeightCollection weights = provider.decodeWeights(def, bytes, file.toString());
      return paramsOnly.copyValues(create.apply(meta.uid(), weights), ParamMap.empty());
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void write(FileSystem fs, Path p, byte[] bytes) throws IOException {
    try (OutputStream out = fs.create(p, true)) {
      out.write(bytes);
    }
  }
}
