package org.sparknet.api.spark;

import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;

/**
 * A SparkNet net as a general Spark ML estimator, for regression and feature extraction: {@code
 * fit} trains it with the distributed loop as {@link SparkNetClassifier} does, with the same
 * training params (progress, initial weights, stop criteria, validation rows; the label column
 * feeds the label blob as it is); the {@link SparkNetModel} it returns writes any blob of the net
 * ({@code outputBlob}) as an {@code array<float>} column, and optionally the blob's first value as
 * a double prediction for regression.
 */
public final class SparkNetEstimator extends Estimator<SparkNetModel>
    implements OutputParams<SparkNetEstimator>,
        TrainingParams<SparkNetEstimator>,
        DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;
  private final FitParams fitParams;

  public SparkNetEstimator() {
    this(Identifiable.randomUID("sparkNetEstimator"));
  }

  public SparkNetEstimator(String uid) {
    this.uid = uid;
    this.params = new StageParams(this);
    this.fitParams = new FitParams(this);
    params.setDefaults(this, false);
    fitParams.setDefaults(this);
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
  public FitParams fitParams() {
    return fitParams;
  }

  @Override
  public SparkNetModel fit(Dataset<?> dataset) {
    transformSchema(dataset.schema());
    StageTraining.Fitted fitted = StageTraining.fit(dataset, this);
    SparkNetModel model =
        copyValues(
            new SparkNetModel(uid, new TrainedNet(fitted.weights(), fitted.history())),
            ParamMap.empty());
    return fitted.shapeInto(model).setParent(this);
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return StageSupport.trainingSchema(schema, this, SparkNetModel.outputColumns(this));
  }

  @Override
  public SparkNetEstimator copy(ParamMap extra) {
    SparkNetEstimator c = defaultCopy(extra);
    c.fitParams.copyInputsFrom(fitParams);
    return c;
  }

  public static MLReader<SparkNetEstimator> read() {
    return new DefaultParamsReader<>();
  }

  public static SparkNetEstimator load(String path) {
    return read().load(path);
  }
}
