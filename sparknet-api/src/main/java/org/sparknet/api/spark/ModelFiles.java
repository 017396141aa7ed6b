package org.sparknet.api.spark;

import java.util.function.BiFunction;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWriter;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.model.ModelStore;

/**
 * A saved SparkNet model: Spark ML's {@code metadata/} (the params JSON, as for every stage) in a
 * {@link ModelStore} model directory ({@code definition/} and {@code weights/}, a Caffe {@code
 * .caffemodel} for the Caffe engine). Loading reads the params, rebuilds the definition from them
 * and decodes the weights with the engine, which checks that they fit the net.
 */
final class ModelFiles {
  private ModelFiles() {}

  /** Writes a model's params and weights. */
  static final class Writer extends MLWriter {
    private final SparkNetParams<?> stage;
    private final WeightCollection weights;

    Writer(SparkNetParams<?> stage, WeightCollection weights) {
      this.stage = stage;
      this.weights = weights;
    }

    @Override
    public void saveImpl(String path) {
      DefaultParamsWriter.saveMetadata(stage, path, sparkSession());
      new ModelStore(sparkSession().sparkContext().hadoopConfiguration())
          .writeModel(path, StageSupport.definition(stage), weights);
    }
  }

  /** Reads a model saved by {@link Writer}: {@code create} makes a model of the saved uid. */
  static final class Reader<M extends SparkNetParams<M>> extends MLReader<M> {
    private final Class<M> type;
    private final BiFunction<String, WeightCollection, M> create;

    Reader(Class<M> type, BiFunction<String, WeightCollection, M> create) {
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
      WeightCollection weights =
          new ModelStore(spark.sparkContext().hadoopConfiguration())
              .readModelWeights(path, StageSupport.definition(paramsOnly));
      return paramsOnly.copyValues(create.apply(meta.uid(), weights), ParamMap.empty());
    }
  }
}
