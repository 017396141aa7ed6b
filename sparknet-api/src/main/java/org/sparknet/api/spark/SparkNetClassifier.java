package org.sparknet.api.spark;

import org.apache.spark.ml.classification.ProbabilisticClassifier;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.types.StructType;

/**
 * A SparkNet net as a Spark ML classifier: {@code fit} trains it with the distributed loop of
 * {@link org.sparknet.api.train.SparkNetTrainer} (rounds of {@code tau} solver steps per worker,
 * model averaging or EASGD, until {@code maxRounds}, {@code maxEpochs}, a target metric or early
 * stopping ends it) on the rows' features and class-index labels; the {@link
 * SparkNetClassificationModel} it returns predicts on the executors.
 *
 * <pre>{@code
 * SparkNetClassifier clf = new SparkNetClassifier()
 *     .setSolverFile("hdfs:///nets/lenet_solver.prototxt")  // its net: file is read too
 *     .setInitialWeights("hdfs:///zoo/lenet.caffemodel")     // fine-tune: copied by layer name
 *     .setTau(50).setNumWorkers(2).setMaxEpochs(3)
 *     .setValidationFraction(0.1).setEarlyStoppingPatience(2);
 * PipelineModel m = new Pipeline().setStages(new PipelineStage[] {assembler, clf}).fit(train);
 * }</pre>
 *
 * <p>It is one of Spark's {@code ProbabilisticClassifier}s, so it has {@code thresholds} and works
 * where Spark expects a classifier ({@code OneVsRest}, {@code CrossValidator}). Unlike Spark's own,
 * its features column may also be {@code array<float>} or {@code array<double>}, and it keeps
 * {@code fit} whole (no per-row training). While it trains it prints one line per round ({@code
 * verbose}) and calls the {@link #addRoundListener round listeners}.
 */
public final class SparkNetClassifier
    extends ProbabilisticClassifier<Vector, SparkNetClassifier, SparkNetClassificationModel>
    implements ClassifierParams<SparkNetClassifier>,
        TrainingParams<SparkNetClassifier>,
        DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;
  private final FitParams fitParams;

  public SparkNetClassifier() {
    this(Identifiable.randomUID("sparkNetClassifier"));
  }

  public SparkNetClassifier(String uid) {
    this(PendingUid.park(uid));
  }

  private SparkNetClassifier(PendingUid pending) {
    this.uid = pending.take();
    this.params =
        new StageParams(
            this,
            new StageParams.SparkColumns(
                featuresCol(), labelCol(), predictionCol(), probabilityCol(), rawPredictionCol()));
    this.fitParams = new FitParams(this);
    params.setDefaults(this, true);
    fitParams.setDefaults(this);
  }

  @Override
  public String uid() {
    // Spark's constructors read the uid before this class's field is set.
    return uid != null ? uid : PendingUid.parked();
  }

  @Override
  public StageParams stageParams() {
    return params;
  }

  @Override
  public FitParams fitParams() {
    return fitParams;
  }

  /**
   * Trains the net; called by {@code fit} after {@link #transformSchema} and with the label cast to
   * double, which copies this estimator's params into the model.
   */
  @Override
  public SparkNetClassificationModel train(Dataset<?> dataset) {
    StageTraining.Fitted fitted = StageTraining.fit(dataset, this);
    return fitted.shapeInto(
        new SparkNetClassificationModel(uid, new TrainedNet(fitted.weights(), fitted.history())));
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return StageSupport.trainingSchema(
        schema, this, SparkNetClassificationModel.outputColumns(this));
  }

  @Override
  public SparkNetClassifier copy(ParamMap extra) {
    SparkNetClassifier c = defaultCopy(extra);
    c.fitParams.copyInputsFrom(fitParams);
    return c;
  }

  public static MLReader<SparkNetClassifier> read() {
    return new DefaultParamsReader<>();
  }

  public static SparkNetClassifier load(String path) {
    return read().load(path);
  }
}
