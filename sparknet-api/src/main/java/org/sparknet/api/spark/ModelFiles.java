package org.sparknet.api.spark;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.model.ModelStore;
import org.sparknet.api.train.RoundMetrics;

/**
 * A saved SparkNet model: Spark ML's {@code metadata/} (the params JSON, as for every stage) in a
 * {@link ModelStore} model directory ({@code definition/} and {@code weights/}, a Caffe {@code
 * .caffemodel} for the Caffe engine), plus {@code history.jsonl}: the training history, one {@link
 * RoundMetrics#toJson()} line per round. Loading reads the params, rebuilds the definition from
 * them and decodes the weights with the engine, which checks that they fit the net; a model saved
 * without a history file loads with an empty history.
 */
final class ModelFiles {
  static final String HISTORY = "history.jsonl";

  private ModelFiles() {}

  /** Writes a model's params, weights and history. */
  static final class Writer extends MLWriter {
    private final SparkNetParams<?> stage;
    private final TrainedNet trained;

    Writer(SparkNetParams<?> stage, TrainedNet trained) {
      this.stage = stage;
      this.trained = trained;
    }

    @Override
    public void saveImpl(String path) {
      DefaultParamsWriter.saveMetadata(stage, path, sparkSession());
      ModelStore store = new ModelStore(sparkSession().sparkContext().hadoopConfiguration());
      store.writeModel(path, StageSupport.definition(stage), trained.weights());
      StringBuilder lines = new StringBuilder();
      for (RoundMetrics m : trained.history()) {
        lines.append(m.toJson()).append('\n');
      }
      store.writeModelFile(path, HISTORY, lines.toString().getBytes(StandardCharsets.UTF_8));
    }
  }

  /** Reads a model saved by {@link Writer}: {@code create} makes a model of the saved uid. */
  static final class Reader<M extends SparkNetParams<M>> extends MLReader<M> {
    private final Class<M> type;
    private final BiFunction<String, TrainedNet, M> create;

    Reader(Class<M> type, BiFunction<String, TrainedNet, M> create) {
      this.type = type;
      this.create = create;
    }

    @Override
    public M load(String path) {
      SparkSession spark = sparkSession();
      DefaultParamsReader.Metadata meta =
          DefaultParamsReader.loadMetadata(path, spark, type.getName());
      M paramsOnly = create.apply(meta.uid(), new TrainedNet(new WeightCollection(), List.of()));
      meta.getAndSetParams(paramsOnly, scala.Option.empty());
      ModelStore store = new ModelStore(spark.sparkContext().hadoopConfiguration());
      WeightCollection weights = store.readModelWeights(path, StageSupport.definition(paramsOnly));
      List<RoundMetrics> history =
          store
              .readModelFile(path, HISTORY)
              .map(bytes -> history(new String(bytes, StandardCharsets.UTF_8), path))
              .orElse(List.of());
      return paramsOnly.copyValues(
          create.apply(meta.uid(), new TrainedNet(weights, history)), ParamMap.empty());
    }

    private static List<RoundMetrics> history(String text, String path) {
      List<RoundMetrics> out = new ArrayList<>();
      String[] lines = text.split("\n");
      for (int i = 0; i < lines.length; i++) {
        if (lines[i].isBlank()) {
          continue;
        }
        try {
          out.add(RoundMetrics.fromJson(lines[i]));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(
              path + "/" + HISTORY + " line " + (i + 1) + ": " + e.getMessage(), e);
        }
      }
      return List.copyOf(out);
    }
  }
}
