package org.sparknet.api.spark;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.averaging.Compression;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.train.Averaging;
import org.sparknet.api.train.RoundListener;
import org.sparknet.api.train.RoundMetrics;
import org.sparknet.api.train.RoundProgress;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TimeBudget;
import org.sparknet.api.train.TrainerConfig;

/** The fit of every SparkNet estimator: the params turned into a trainer run. */
final class StageTraining {
  private StageTraining() {}

  /**
   * The trained weights, one entry per round, and the example shape taken from the features (null
   * when {@code inputShape} was set or the net declares its inputs).
   */
  record Fitted(WeightCollection weights, List<RoundMetrics> history, int[] inferredShape) {

    /** {@code model} with the inferred example shape as its {@code inputShape}, if there is one. */
    <M extends SparkNetParams<?>> M shapeInto(M model) {
      if (inferredShape != null) {
        model.setInputShape(inferredShape);
      }
      return model;
    }
  }

  /**
   * Trains on {@code dataset} with the distributed loop until a stop criterion holds ({@code
   * maxRounds}, {@code maxEpochs}, the target metric, early stopping), validating after every round
   * when the params name validation rows.
   */
  static Fitted fit(Dataset<?> dataset, TrainingParams<?> p) {
    Dataset<Row> df = dataset.toDF();
    StageSupport.checkFeatures(df.schema(), p);
    FeatureColumns.checkLabel(df.schema(), p.getLabelCol());
    ValidationSplit split = ValidationSplit.of(df, p);
    String fc = p.getFeaturesCol();
    String lc = p.getLabelCol();
    NetDefinition def = StageSupport.definition(p, () -> FeatureColumns.size(df, fc));
    int[] inferred =
        p.getInputShape().length == 0 && def.sampleShape() != null
            ? def.sampleShape().stream().mapToInt(Integer::intValue).toArray()
            : null;
    TrainerConfig.Builder b = config(def, p, split.validation() != null);
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(df.sparkSession().sparkContext());
    try (SparkNetTrainer trainer = new SparkNetTrainer(sc, b.build())) {
      // The net is built now: check a column whose size its ML attributes tell before any job.
      FeatureColumns.checkFeatures(
          df.schema(), fc, trainer.featureSize(), "the net's input blob '" + p.getDataBlob() + "'");
      trainer.setTrainingData(split.train(), fc, lc);
      if (split.validation() != null) {
        trainer.setValidationData(split.validation(), fc, lc);
      }
      if (p.getVerbose()) {
        trainer.addListener(new RoundProgress(System.out, p.getMaxRounds(), p.getMaxEpochs()));
      }
      for (RoundListener l : p.getRoundListeners()) {
        trainer.addListener(l);
      }
      List<RoundMetrics> history = trainer.train();
      return new Fitted(trainer.getWeights(), List.copyOf(history), inferred);
    }
  }

  /**
   * The stage's averaging, alpha and staleness params as the trainer's {@link Averaging}: alpha and
   * staleness have defaults, so a mode ignores those it does not take.
   */
  static Averaging averaging(TrainingParams<?> p) {
    return Averaging.Mode.parse(p.getAveraging(), "Stage " + p.uid() + ": averaging")
        .with(p.getAlpha(), p.getStaleness());
  }

  private static TrainerConfig.Builder config(
      NetDefinition def, TrainingParams<?> p, boolean validates) {
    TrainerConfig.Builder b =
        TrainerConfig.builder()
            .setNetDefinition(def)
            .optTau(p.getTau())
            .optSeed(p.getSeed())
            .optDataBlob(p.getDataBlob())
            .optLabelBlob(p.getLabelBlob())
            .optAveraging(averaging(p));
    if (p.getNumWorkers() > 0) {
      b.optWorkers(p.getNumWorkers());
    }
    if (p.getWorkersPerGpu() > 0) {
      b.optWorkersPerGpu(p.getWorkersPerGpu());
    }
    b.optCompress(Compression.parse(p.getCompress(), "Stage " + p.uid() + ": compress"));
    if (p.getAdaptiveTau()) {
      b.optAdaptiveTau(p.getMaxOverhead(), p.getTauMax());
    }
    if (!p.getCheckpointDir().isBlank()) {
      b.optCheckpointDir(p.getCheckpointDir());
    }
    if (!p.getInitialWeights().isBlank()) {
      b.optInitialWeights(p.getInitialWeights());
    }
    stopCriteria(b, p, validates);
    if (validates) {
      b.optValidationInterval(1);
    }
    return b;
  }

  /** Max rounds and epochs, the target metric and early stopping, checked against each other. */
  private static void stopCriteria(
      TrainerConfig.Builder b, TrainingParams<?> p, boolean validates) {
    if (p.getMaxRounds() > 0) {
      b.optMaxRounds(p.getMaxRounds());
    }
    if (p.getMaxEpochs() > 0) {
      b.optMaxEpochs(p.getMaxEpochs());
    }
    boolean budgeted = !p.getTimeBudget().isBlank();
    if (budgeted) {
      b.optTimeBudget(
          TimeBudget.of(
              TimeBudget.parseDuration(p.getTimeBudget(), "Stage " + p.uid() + ": timeBudget")));
    }
    String target = p.getTargetMetric();
    if (!target.isBlank()) {
      if (!p.isDefined(p.targetValue())) {
        throw new IllegalArgumentException(
            "Stage " + p.uid() + " has targetMetric '" + target + "' but no targetValue; set it");
      }
      b.optTargetMetric(target, p.getTargetValue());
    }
    if (p.getEarlyStoppingPatience() > 0) {
      b.optEarlyStoppingPatience(p.getEarlyStoppingPatience());
    }
    boolean watches = !target.isBlank() || p.getEarlyStoppingPatience() > 0;
    if (watches && !validates) {
      throw new IllegalArgumentException(
          "Stage "
              + p.uid()
              + ": targetMetric and earlyStoppingPatience watch validation results, but there are"
              + " no validation rows; set validationFraction or validationCol, or call"
              + " setValidationData(...)");
    }
    if (p.getMaxRounds() == 0 && p.getMaxEpochs() == 0 && !watches && !budgeted) {
      throw new IllegalArgumentException(
          "Stage "
              + p.uid()
              + " has no stop criterion: maxRounds is 0 (no limit) and maxEpochs, timeBudget,"
              + " targetMetric and earlyStoppingPatience are unset; set one");
    }
  }
}
