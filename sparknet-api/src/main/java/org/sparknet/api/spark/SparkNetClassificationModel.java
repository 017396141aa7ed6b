package org.sparknet.api.spark;

import java.util.List;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.train.RoundMetrics;

/**
 * A trained SparkNet classifier. {@code transform} keeps every input column and appends, as Spark's
 * classifiers do, {@code rawPredictionCol} (the output blob's scores, a Vector), {@code
 * probabilityCol} (their softmax) and {@code predictionCol} (the index of the highest score, a
 * double); {@code MulticlassClassificationEvaluator} reads them as they are. An empty column name
 * leaves that column out. The output blob is {@code outputBlob}, else the engine's scores blob (for
 * Caffe the bottom of the softmax, accuracy or classification loss layer): name a blob of scores,
 * not of probabilities.
 *
 * <p>Inference runs on the executors, in batches of the TEST-phase net's batch size, one net per
 * task (built once and used for all of the task's rows, then closed).
 *
 * <p>{@code save} writes the params and the weights in the engine's format (a Caffe {@code
 * .caffemodel} under {@code weights/}); {@link #load} reads them back, also inside a saved {@code
 * PipelineModel}.
 */
public final class SparkNetClassificationModel extends Model<SparkNetClassificationModel>
    implements ClassifierParams<SparkNetClassificationModel>, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;
  private TrainedNet trained;

  /** A model of the given weights; set the definition through the params (solverText, ...). */
  public SparkNetClassificationModel(String uid, WeightCollection weights) {
    this.uid = uid;
    this.trained = new TrainedNet(weights, List.of());
    this.params = new StageParams(this);
    params.setDefaults(this, true);
  }

  public SparkNetClassificationModel(WeightCollection weights) {
    this(Identifiable.randomUID("sparkNetClassificationModel"), weights);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public StageParams stageParams() {
    return params;
  }

  /** A copy of the trained weights. */
  public WeightCollection weights() {
    return trained.weights().copy();
  }

  /** The metrics of each training round (empty for a loaded model). */
  public List<RoundMetrics> trainingHistory() {
    return trained.history();
  }

  void setTrainingHistory(List<RoundMetrics> history) {
    this.trained = trained.withHistory(history);
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType out = transformSchema(dataset.schema());
    boolean raw = !getRawPredictionCol().isEmpty();
    boolean prob = !getProbabilityCol().isEmpty();
    boolean pred = !getPredictionCol().isEmpty();
    return StageInference.transform(
        dataset,
        this,
        trained.weights(),
        out,
        new StageInference.Output(true, raw, prob, pred, false));
  }

  @Override
  public StructType transformSchema(StructType schema) {
    StageSupport.checkFeatures(schema, this);
    return outputSchema(schema, this);
  }

  /** The input schema plus the classifier's output columns, in the order they are appended. */
  static StructType outputSchema(StructType schema, ClassifierParams<?> p) {
    StructType out =
        StageSupport.append(
            schema, p.getRawPredictionCol(), SQLDataTypes.VectorType(), "rawPredictionCol");
    out =
        StageSupport.append(
            out, p.getProbabilityCol(), SQLDataTypes.VectorType(), "probabilityCol");
    return StageSupport.append(out, p.getPredictionCol(), DataTypes.DoubleType, "predictionCol");
  }

  @Override
  public SparkNetClassificationModel copy(ParamMap extra) {
    SparkNetClassificationModel m =
        copyValues(new SparkNetClassificationModel(uid, trained.weights()), extra);
    m.trained = trained;
    return m.setParent(parent());
  }

  @Override
  public MLWriter write() {
    return new ModelFiles.Writer(this, trained.weights());
  }

  public static MLReader<SparkNetClassificationModel> read() {
    return new ModelFiles.Reader<>(
        SparkNetClassificationModel.class, SparkNetClassificationModel::new);
  }

  public static SparkNetClassificationModel load(String path) {
    return read().load(path);
  }

  @Override
  public String toString() {
    return trained.describe("SparkNetClassificationModel", uid, getEngine());
  }
}
