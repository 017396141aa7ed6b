package org.sparknet.api.spark.internal;

import java.util.Arrays;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.spark.SparkNetParams;

/** The transform of every SparkNet model: batched inference on the executors. */
public final class StageInference {
  private StageInference() {}

  /**
   * {@code dataset} with the output columns of {@code output} appended (schema {@code out}), every
   * input column kept. Lazy, like every transform: the weights are broadcast now, the nets are
   * built by the tasks that run it.
   */
  public static Dataset<Row> transform(
      Dataset<?> dataset,
      SparkNetParams<?> p,
      WeightCollection weights,
      StructType out,
      BatchPredictor.Output output) {
    Dataset<Row> df = dataset.toDF();
    String fc = p.getFeaturesCol();
    StageSupport.FeatureKind kind =
        StageSupport.checkFeatures(
            df.schema(),
            fc,
            StageSupport.expectedFeatures(p),
            "inputShape " + Arrays.toString(p.getInputShape()));
    NetDefinition def = StageSupport.definition(p);
    BatchPredictor.Plan plan =
        new BatchPredictor.Plan(
            def, p.getDataBlob(), outputBlob(p, def), fc, df.schema().fieldIndex(fc), kind, output);
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext());
    Broadcast<WeightCollection> bc = sc.broadcast(weights);
    return df.mapPartitions(
        (MapPartitionsFunction<Row, Row>) rows -> new BatchPredictor(plan, bc.value(), rows),
        Encoders.row(out));
  }

  /** The blob to read: the named one, else the engine's scores blob. */
  public static String outputBlob(SparkNetParams<?> p, NetDefinition def) {
    String blob = p.getOutputBlob();
    return blob == null || blob.isBlank()
        ? NetProvider.forEngine(def.engine()).defaultScoresBlob(def)
        : blob;
  }
}
