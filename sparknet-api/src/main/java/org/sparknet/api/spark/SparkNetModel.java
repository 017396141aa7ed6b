package org.sparknet.api.spark;

import java.util.List;
import org.apache.spark.ml.Model;
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
import org.sparknet.api.spark.StageSupport.OutputColumn;
import org.sparknet.api.train.RoundMetrics;

/**
 * A trained SparkNet net as a general transformer: {@code transform} keeps every input column and
 * appends {@code outputCol}, the values of blob {@code outputBlob} for the row as an {@code
 * array<float>} of the blob's width (its size without the batch axis; feature extraction), and,
 * when {@code predictionCol} is set, the blob's first value as a double (regression). Inference
 * runs as for {@link SparkNetClassificationModel}; save and load (with the training history) too.
 */
public final class SparkNetModel extends Model<SparkNetModel>
    implements OutputParams<SparkNetModel>, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;
  private final TrainedNet trained;

  /**
   * A model with no weights, for Spark Connect's server: it lists the model classes it may load
   * with {@link java.util.ServiceLoader} (META-INF/services/org.apache.spark.ml.Transformer), which
   * requires a public no-argument constructor, and builds the models themselves by {@link #load}.
   * Use a fitted or loaded model instead.
   */
  public SparkNetModel() {
    this(new WeightCollection());
  }

  /** A model of the given weights; set the definition through the params (solverText, ...). */
  public SparkNetModel(String uid, WeightCollection weights) {
    this(uid, new TrainedNet(weights, List.of()));
  }

  SparkNetModel(String uid, TrainedNet trained) {
    this.uid = uid;
    this.trained = trained;
    this.params = new StageParams(this);
    params.setDefaults(this, false);
  }

  /**
   * A model of a Caffe net and its trained weights, for feature extraction with no training (a
   * model zoo net): {@code netFile} is the net prototxt (a deploy net, any Hadoop URI), {@code
   * caffemodel} its weights, which must cover every learnable layer of the net.
   *
   * @throws IllegalArgumentException naming the file that is missing or does not fit the net
   */
  public static SparkNetModel fromCaffe(String netFile, String caffemodel) {
    return CaffeZoo.model(
        CaffeZoo.deployDefinition(netFile), caffemodel, "sparkNetModel", SparkNetModel::new);
  }

  public SparkNetModel(WeightCollection weights) {
    this(Identifiable.randomUID("sparkNetModel"), weights);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public StageParams stageParams() {
    return params;
  }

  /**
   * A stage that runs {@code model} on Spark: its definition params (engine, solver and net text,
   * input shape, seed, device) set from the model's definition, with no training history.
   */
  public static SparkNetModel of(org.sparknet.api.model.Model model) {
    SparkNetModel m = new SparkNetModel(Identifiable.randomUID("sparkNetModel"), model.weights());
    StageSupport.setDefinition(m, model.definition());
    return m;
  }

  /**
   * The net as a {@link org.sparknet.api.model.Model}: the definition its params give, and the
   * trained weights.
   */
  public org.sparknet.api.model.Model model() {
    return org.sparknet.api.model.Model.of(StageSupport.definition(this), trained.weights());
  }

  /** A copy of the trained weights. */
  public WeightCollection weights() {
    return trained.weights().copy();
  }

  /**
   * The metrics of each training round, oldest first, saved and loaded with the model (empty for a
   * model that was not trained, or saved before models kept their history).
   */
  public List<RoundMetrics> getHistory() {
    return trained.history();
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType out = transformSchema(dataset.schema());
    boolean pred = !getPredictionCol().isEmpty();
    return StageInference.transform(
        dataset, this, trained.weights(), out, StageInference.Output.general(pred));
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return StageSupport.inferenceSchema(schema, this, outputColumns(this));
  }

  /** The output columns, in the order they are appended. */
  static List<OutputColumn> outputColumns(OutputParams<?> p) {
    return List.of(
        new OutputColumn(
            p.getOutputCol(), DataTypes.createArrayType(DataTypes.FloatType, false), "outputCol"),
        new OutputColumn(p.getPredictionCol(), DataTypes.DoubleType, "predictionCol"));
  }

  @Override
  public SparkNetModel copy(ParamMap extra) {
    SparkNetModel m = copyValues(new SparkNetModel(uid, trained), extra);
    return m.setParent(parent());
  }

  @Override
  public MLWriter write() {
    return new ModelFiles.Writer(this, trained);
  }

  public static MLReader<SparkNetModel> read() {
    return new ModelFiles.Reader<>(SparkNetModel.class, SparkNetModel::new);
  }

  public static SparkNetModel load(String path) {
    return read().load(path);
  }

  @Override
  public String toString() {
    return trained.describe("SparkNetModel", uid, getEngine());
  }
}
