package org.sparknet.api.spark;

import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.data.FeatureColumns;

/**
 * A SparkNet net as a Spark ML classifier: {@code fit} trains it with the distributed loop of
 * {@link org.sparknet.api.train.SparkNetTrainer} ({@code maxRounds} rounds of {@code tau} solver
 * steps per worker, model averaging or EASGD) on the rows' features and class-index labels; the
 * {@link SparkNetClassificationModel} it returns predicts on the executors.
 *
 * <pre>{@code
 * SparkNetClassifier clf = new SparkNetClassifier()
 *     .setSolverText(solver).setNetText(net)      // Caffe prototxt text
 *     .setTau(50).setNumWorkers(2).setMaxRounds(20);
 * PipelineModel m = new Pipeline().setStages(new PipelineStage[] {assembler, clf}).fit(train);
 * }</pre>
 */
public final class SparkNetClassifier extends Estimator<SparkNetClassificationModel>
    implements ClassifierParams<SparkNetClassifier>, DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;

  public SparkNetClassifier() {
    this(Identifiable.randomUID("sparkNetClassifier"));
  }

  public SparkNetClassifier(String uid) {
    this.uid = uid;
    this.params = new StageParams(this);
    params.setDefaults(this, true);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public StageParams stageParams() {
    return params;
  }

  @Override
  public SparkNetClassificationModel fit(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    StageTraining.Fitted fitted = StageTraining.fit(dataset, this);
    SparkNetClassificationModel model =
        copyValues(new SparkNetClassificationModel(uid, fitted.weights()), ParamMap.empty());
    model.setTrainingHistory(fitted.history());
    return model.setParent(this);
  }

  @Override
  public StructType transformSchema(StructType schema) {
    StageSupport.checkFeatures(schema, this);
    FeatureColumns.checkLabel(schema, getLabelCol());
    return SparkNetClassificationModel.outputSchema(schema, this);
  }

  @Override
  public SparkNetClassifier copy(ParamMap extra) {
    return defaultCopy(extra);
  }

  public static MLReader<SparkNetClassifier> read() {
    return new DefaultParamsReader<>();
  }

  public static SparkNetClassifier load(String path) {
    return read().load(path);
  }
}
