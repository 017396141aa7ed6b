package org.sparknet.api.spark;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TrainerConfig;

/** The fit of every SparkNet estimator: the params turned into a trainer run. */
final class StageTraining {
  private StageTraining() {}

  /** The trained weights and one entry per round. */
  record Fitted(WeightCollection weights, List<RoundMetrics> history) {}

  /**
   * Trains on {@code dataset} with the distributed loop: {@code maxRounds} rounds of {@code tau}
   * steps per worker, optionally validating on a held-out fraction after each round.
   */
  static Fitted fit(Dataset<?> dataset, SparkNetParams<?> p) {
    Dataset<Row> df = dataset.toDF();
    StageSupport.checkFeatures(df.schema(), p);
    FeatureColumns.checkLabel(df.schema(), p.getLabelCol());
    TrainerConfig.Builder b = config(StageSupport.definition(p), p);
    Dataset<Row> train = df;
    Dataset<Row> validation = null;
    double vf = p.getValidationFraction();
    if (vf > 0) {
      Dataset<Row>[] parts = df.randomSplit(new double[] {1 - vf, vf}, p.getSeed());
      train = parts[0];
      validation = parts[1];
      b.optValidationInterval(1);
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext());
    String fc = p.getFeaturesCol();
    String lc = p.getLabelCol();
    try (SparkNetTrainer trainer = new SparkNetTrainer(sc, b.build())) {
      // The net is built now: check a column whose size its ML attributes tell before any job.
      FeatureColumns.checkFeatures(
          df.schema(), fc, trainer.featureSize(), "the net's input blob '" + p.getDataBlob() + "'");
      trainer.setTrainingData(train, fc, lc);
      if (validation != null) {
        trainer.setValidationData(validation, fc, lc);
      }
      List<RoundMetrics> history = trainer.train();
      return new Fitted(trainer.getWeights(), List.copyOf(history));
    }
  }

  private static TrainerConfig.Builder config(NetDefinition def, SparkNetParams<?> p) {
    TrainerConfig.Builder b =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(p.getTau())
            .optMaxRounds(p.getMaxRounds())
            .optSeed(p.getSeed())
            .optDataBlob(p.getDataBlob())
            .optLabelBlob(p.getLabelBlob())
            .optAveraging(
                p.getAveraging().equals("easgd")
                    ? Averaging.elastic(p.getAlpha())
                    : Averaging.PLAIN);
    if (p.getNumWorkers() > 0) {
      b.optWorkers(p.getNumWorkers());
    }
    if (!p.getCheckpointDir().isBlank()) {
      b.optCheckpointDir(p.getCheckpointDir());
    }
    return b;
  }
}
