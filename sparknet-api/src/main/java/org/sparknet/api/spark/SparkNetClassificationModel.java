package org.sparknet.api.spark;

import java.util.List;
import org.apache.spark.ml.classification.ProbabilisticClassificationModel;
import org.apache.spark.ml.linalg.DenseVector;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.Identifiable;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.model.Model;
import org.sparknet.api.predict.Prediction;
import org.sparknet.api.spark.StageSupport.OutputColumn;
import org.sparknet.api.train.RoundMetrics;

/**
 * A trained SparkNet classifier. {@code transform} keeps every input column and appends, as Spark's
 * classifiers do, {@code rawPredictionCol} (the output blob's scores, a Vector), {@code
 * probabilityCol} (their softmax) and {@code predictionCol} (the index of the highest score, a
 * double; with {@code thresholds}, of the highest probability over its class's threshold); {@code
 * MulticlassClassificationEvaluator} reads them as they are. An empty column name leaves that
 * column out. The output blob is {@code outputBlob}, else the engine's scores blob (for Caffe the
 * bottom of the softmax, accuracy or classification loss layer): name a blob of scores, not of
 * probabilities.
 *
 * <p>It is one of Spark's {@code ProbabilisticClassificationModel}s ({@code numClasses}, {@code
 * thresholds}, {@code predict}, {@code predictRaw} and {@code predictProbability} on one Vector;
 * usable inside {@code OneVsRest}), but {@code transform} stays batched: inference runs on the
 * executors in batches of the TEST-phase net's batch size, one net per task (built once and used
 * for all of the task's rows, then closed), and the features column may also be {@code
 * array<float>} or {@code array<double>}. The single-vector methods and {@code numClasses} build a
 * net on the driver for the call: use {@code transform} for many rows.
 *
 * <p>{@code save} writes the params, the weights in the engine's format (a Caffe {@code
 * .caffemodel} under {@code weights/}) and the training history; {@link #load} reads them back,
 * also inside a saved {@code PipelineModel}. {@link #fromCaffe} makes a model of a model zoo net
 * and its {@code .caffemodel}, for inference without training.
 */
public final class SparkNetClassificationModel
    extends ProbabilisticClassificationModel<Vector, SparkNetClassificationModel>
    implements ClassifierParams<SparkNetClassificationModel>, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final StageParams params;
  private final TrainedNet trained;
  private transient volatile ClassCount classCount;

  /** The class count of a definition and output blob, kept while the params name them. */
  private record ClassCount(NetDefinition definition, String blob, int classes) {}

  /**
   * A model with no weights, for Spark Connect's server: it lists the model classes it may load
   * with {@link java.util.ServiceLoader} (META-INF/services/org.apache.spark.ml.Transformer), which
   * requires a public no-argument constructor, and builds the models themselves by {@link #load}.
   * Use a fitted or loaded model instead.
   */
  public SparkNetClassificationModel() {
    this(new WeightCollection());
  }

  /** A model of the given weights; set the definition through the params (solverText, ...). */
  public SparkNetClassificationModel(String uid, WeightCollection weights) {
    this(uid, new TrainedNet(weights, List.of()));
  }

  public SparkNetClassificationModel(WeightCollection weights) {
    this(Identifiable.randomUID("sparkNetClassificationModel"), weights);
  }

  SparkNetClassificationModel(String uid, TrainedNet trained) {
    this(PendingUid.park(uid), trained);
  }

  private SparkNetClassificationModel(PendingUid pending, TrainedNet trained) {
    this.uid = pending.take();
    this.trained = trained;
    this.params =
        new StageParams(
            this,
            new StageParams.SparkColumns(
                featuresCol(), labelCol(), predictionCol(), probabilityCol(), rawPredictionCol()));
    params.setDefaults(this, true);
  }

  /**
   * A model of a Caffe net and its trained weights, for inference with no training (a model zoo
   * net): {@code netFile} is the net prototxt (a deploy net, any Hadoop URI), {@code caffemodel}
   * its weights, which must cover every learnable layer of the net.
   *
   * @throws IllegalArgumentException naming the file that is missing or does not fit the net
   */
  public static SparkNetClassificationModel fromCaffe(String netFile, String caffemodel) {
    return CaffeZoo.model(
        CaffeZoo.deployDefinition(netFile),
        caffemodel,
        "sparkNetClassificationModel",
        SparkNetClassificationModel::new);
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

  /**
   * A stage that runs {@code model} on Spark: its definition params (engine, solver and net text,
   * input shape, seed, device) set from the model's definition, with no training history.
   */
  public static SparkNetClassificationModel of(Model model) {
    SparkNetClassificationModel m =
        new SparkNetClassificationModel(
            Identifiable.randomUID("sparkNetClassificationModel"), model.weights());
    StageSupport.setDefinition(m, model.definition());
    return m;
  }

  /** The net as a {@link Model}: the definition its params give, and the trained weights. */
  public Model model() {
    return Model.of(StageSupport.definition(this), trained.weights());
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

  /** The width of the output blob: the number of classes (builds the net once per definition). */
  @Override
  public int numClasses() {
    NetDefinition def = StageSupport.definition(this);
    String blob = getOutputBlob();
    ClassCount c = classCount;
    if (c == null || !c.definition().equals(def) || !c.blob().equals(blob)) {
      c =
          new ClassCount(
              def, blob, StageInference.predictOne(this, trained.weights(), null).length);
      classCount = c;
    }
    return c.classes();
  }

  /** The output blob's scores for one example, computed on the driver. */
  @Override
  public Vector predictRaw(Vector features) {
    double[] f = features.toArray();
    float[] x = new float[f.length];
    for (int i = 0; i < f.length; i++) {
      x[i] = (float) f[i];
    }
    float[] out = StageInference.predictOne(this, trained.weights(), x);
    double[] raw = new double[out.length];
    for (int i = 0; i < out.length; i++) {
      raw[i] = out[i];
    }
    return Vectors.dense(raw);
  }

  /** The softmax of the scores (shifted by their maximum), in place when {@code raw} is dense. */
  @Override
  public Vector raw2probabilityInPlace(Vector raw) {
    DenseVector d = raw instanceof DenseVector dense ? dense : raw.toDense();
    Prediction.softmaxInPlace(d.values());
    return d;
  }

  @Override
  public Dataset<Row> transform(Dataset<?> dataset) {
    StructType out = transformSchema(dataset.schema());
    double[] t = null;
    if (isDefined(thresholds())) {
      t = getThresholds();
      if (t.length != numClasses()) {
        throw new IllegalArgumentException(
            "thresholds has "
                + t.length
                + " values but the net's output blob has "
                + numClasses()
                + " classes; set one threshold per class");
      }
    }
    return StageInference.transform(
        dataset,
        this,
        trained.weights(),
        out,
        StageInference.Output.classifier(
            !getRawPredictionCol().isEmpty(),
            !getProbabilityCol().isEmpty(),
            !getPredictionCol().isEmpty(),
            t));
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return StageSupport.inferenceSchema(schema, this, outputColumns(this));
  }

  /** The classifier's output columns, in the order they are appended. */
  static List<OutputColumn> outputColumns(ClassifierParams<?> p) {
    return List.of(
        new OutputColumn(p.getRawPredictionCol(), SQLDataTypes.VectorType(), "rawPredictionCol"),
        new OutputColumn(p.getProbabilityCol(), SQLDataTypes.VectorType(), "probabilityCol"),
        new OutputColumn(p.getPredictionCol(), DataTypes.DoubleType, "predictionCol"));
  }

  @Override
  public SparkNetClassificationModel copy(ParamMap extra) {
    SparkNetClassificationModel m =
        copyValues(new SparkNetClassificationModel(uid, trained), extra);
    return m.setParent(parent());
  }

  /**
   * Spark's two classifier superclasses declare this with return types that Java sees as
   * incompatible; the raw type lets Java override both with Spark's own implementation.
   */
  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public scala.Tuple3 findSummaryModel() {
    return super.findSummaryModel();
  }

  @Override
  public MLWriter write() {
    return new ModelFiles.Writer(this, trained);
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
