package org.sparknet.api.spark;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;
import org.sparknet.api.storage.SolverFiles;

/**
 * The params every SparkNet stage has: the net definition, the data columns and the training loop
 * settings ({@code tau()}, {@code getTau()}, {@code setTau(..)}, ...). Estimators copy them into
 * the models they fit, so a model knows the net it runs.
 *
 * @param <S> the stage type, returned by the setters
 */
@SuppressWarnings("unchecked") // S is the stage itself: the setters' casts are safe
public interface SparkNetParams<S extends SparkNetParams<S>> extends Params {

  /** The param objects behind the accessors; not for callers. */
  StageParams stageParams();

  /** The net engine, default "caffe". */
  default Param<String> engine() {
    return stageParams().engine;
  }

  default String getEngine() {
    return (String) getOrDefault(engine());
  }

  default S setEngine(String value) {
    return (S) set(engine(), value);
  }

  /** The solver definition text (required). */
  default Param<String> solverText() {
    return stageParams().solverText;
  }

  default String getSolverText() {
    return (String) getOrDefault(solverText());
  }

  default S setSolverText(String value) {
    return (S) set(solverText(), value);
  }

  /** The net definition text; empty (default) when the solver text holds the net. */
  default Param<String> netText() {
    return stageParams().netText;
  }

  default String getNetText() {
    return (String) getOrDefault(netText());
  }

  default S setNetText(String value) {
    return (S) set(netText(), value);
  }

  /**
   * Reads the solver file (any Hadoop URI: a plain path, {@code file:}, {@code hdfs:}, ...) into
   * {@code solverText} and, when the solver names its net ({@code net: "lenet.prototxt"}), that
   * file into {@code netText}: a relative name is looked for beside the solver first, then as it is
   * written, as the CLI does. A solver that embeds its net ({@code net_param}) clears {@code
   * netText}; one that names none leaves it as it is. The texts are what the stage keeps and saves,
   * not the URIs. Call {@link #setNetFile} after this to take the net from another file.
   *
   * @throws IllegalArgumentException naming the file that is missing or unreadable
   */
  default S setSolverFile(String uri) {
    SolverFiles t = DefinitionFiles.read(uri);
    setSolverText(t.solverText());
    if (t.netText() != null) {
      setNetText(t.netText());
    } else if (t.embedsNet()) {
      setNetText("");
    }
    return (S) this;
  }

  /**
   * Reads the net file (any Hadoop URI) into {@code netText}, overriding the net the solver names.
   *
   * @throws IllegalArgumentException naming the file when it is missing or unreadable
   */
  default S setNetFile(String uri) {
    return setNetText(DefinitionFiles.text(uri, "Net"));
  }

  /**
   * Shape of one example without the batch axis. Empty (default): the net's, when its inputs
   * declare it ({@code Input}, {@code MemoryData}); for Caffe's {@code Data}-style layers, which do
   * not, the stage takes it from the features' size n as Caffe's Data layer reads a {@code Datum}:
   * [1, s, s] when n = s*s (a grey image: 784 gives [1, 28, 28]), [3, s, s] when n = 3*s*s (a
   * colour image, channels first: 3072 gives [3, 32, 32]), else [n, 1, 1]; the fitted model keeps
   * the shape. Set it for anything else (non-square images, another channel count).
   *
   * <p>The features go to the net as they are: no stage scales them. A Data layer's {@code
   * transform_param} ({@code scale}, {@code mean_value}, crops, mirrors) applies to them as Caffe
   * applies it to the bytes of its database, so Caffe's LeNet ({@code scale: 0.00390625}) takes raw
   * 0-255 pixels; an {@code Input} layer scales nothing, so its net takes the values it was trained
   * on.
   */
  default IntArrayParam inputShape() {
    return stageParams().inputShape;
  }

  default int[] getInputShape() {
    return (int[]) getOrDefault(inputShape());
  }

  default S setInputShape(int[] value) {
    return (S) set(inputShape(), value);
  }

  /**
   * "cpu" (default), "gpu:N", "gpu" (the GPU Spark assigns to each task) or "auto" (that GPU, else
   * the CPU); see {@link org.sparknet.api.NetDefinition#device()}.
   */
  default Param<String> device() {
    return stageParams().device;
  }

  default String getDevice() {
    return (String) getOrDefault(device());
  }

  default S setDevice(String value) {
    return (S) set(device(), value);
  }

  /** Input blob that receives the features, default "data". */
  default Param<String> dataBlob() {
    return stageParams().dataBlob;
  }

  default String getDataBlob() {
    return (String) getOrDefault(dataBlob());
  }

  default S setDataBlob(String value) {
    return (S) set(dataBlob(), value);
  }

  /** Input blob that receives the labels, default "label". */
  default Param<String> labelBlob() {
    return stageParams().labelBlob;
  }

  default String getLabelBlob() {
    return (String) getOrDefault(labelBlob());
  }

  default S setLabelBlob(String value) {
    return (S) set(labelBlob(), value);
  }

  /** Features column (Vector, array<float>, array<double>), default "features". */
  default Param<String> featuresCol() {
    return stageParams().featuresCol;
  }

  default String getFeaturesCol() {
    return (String) getOrDefault(featuresCol());
  }

  default S setFeaturesCol(String value) {
    return (S) set(featuresCol(), value);
  }

  /** Numeric label column, default "label". */
  default Param<String> labelCol() {
    return stageParams().labelCol;
  }

  default String getLabelCol() {
    return (String) getOrDefault(labelCol());
  }

  default S setLabelCol(String value) {
    return (S) set(labelCol(), value);
  }

  /** Blob that transform reads; empty (default): the engine's scores blob. */
  default Param<String> outputBlob() {
    return stageParams().outputBlob;
  }

  default String getOutputBlob() {
    return (String) getOrDefault(outputBlob());
  }

  default S setOutputBlob(String value) {
    return (S) set(outputBlob(), value);
  }

  /**
   * Prediction column (double): a classifier's class index, default "prediction"; a general stage's
   * first value of the output blob (regression), default empty: none.
   */
  default Param<String> predictionCol() {
    return stageParams().predictionCol;
  }

  default String getPredictionCol() {
    return (String) getOrDefault(predictionCol());
  }

  default S setPredictionCol(String value) {
    return (S) set(predictionCol(), value);
  }

  /** Solver steps per worker per round, default 50. */
  default IntParam tau() {
    return stageParams().tau;
  }

  default int getTau() {
    return (Integer) getOrDefault(tau());
  }

  default S setTau(int value) {
    return (S) set(tau(), value);
  }

  /** Workers (partitions); 0 (default): Spark's default parallelism. */
  default IntParam numWorkers() {
    return stageParams().numWorkers;
  }

  default int getNumWorkers() {
    return (Integer) getOrDefault(numWorkers());
  }

  default S setNumWorkers(int value) {
    return (S) set(numWorkers(), value);
  }

  /** Batch size of every input blob; 0 (default): the definition's. */
  default IntParam batchSize() {
    return stageParams().batchSize;
  }

  default int getBatchSize() {
    return (Integer) getOrDefault(batchSize());
  }

  default S setBatchSize(int value) {
    return (S) set(batchSize(), value);
  }

  /**
   * Training rounds (resumed ones included), default 10; 0: no round limit (the estimators' {@code
   * maxEpochs}, {@code targetMetric} or {@code earlyStoppingPatience} stop training).
   */
  default IntParam maxRounds() {
    return stageParams().maxRounds;
  }

  default int getMaxRounds() {
    return (Integer) getOrDefault(maxRounds());
  }

  default S setMaxRounds(int value) {
    return (S) set(maxRounds(), value);
  }

  /** The solver's base learning rate; 0 (default): the solver definition's. */
  default DoubleParam learningRate() {
    return stageParams().learningRate;
  }

  default double getLearningRate() {
    return (Double) getOrDefault(learningRate());
  }

  default S setLearningRate(double value) {
    return (S) set(learningRate(), value);
  }

  /**
   * "plain" (default), "easgd", "allreduce", "downpour" or "easgd-async" ({@link
   * org.sparknet.api.train.Averaging.Mode}); the elastic modes take {@link #alpha}, the
   * asynchronous ones {@link #staleness}.
   */
  default Param<String> averaging() {
    return stageParams().averaging;
  }

  default String getAveraging() {
    return (String) getOrDefault(averaging());
  }

  default S setAveraging(String value) {
    return (S) set(averaging(), value);
  }

  /** EASGD moving rate, default 0.5. */
  default DoubleParam alpha() {
    return stageParams().alpha;
  }

  default double getAlpha() {
    return (Double) getOrDefault(alpha());
  }

  default S setAlpha(double value) {
    return (S) set(alpha(), value);
  }

  /**
   * downpour and easgd-async: the most pushes by other workers between a worker's pull and its push
   * for the push to count; default {@value org.sparknet.api.train.Averaging#DEFAULT_STALENESS}.
   */
  default IntParam staleness() {
    return stageParams().staleness;
  }

  default int getStaleness() {
    return (Integer) getOrDefault(staleness());
  }

  default S setStaleness(int value) {
    return (S) set(staleness(), value);
  }

  /** Seed of the weights and the data order, default 0. */
  default LongParam seed() {
    return stageParams().seed;
  }

  default long getSeed() {
    return (Long) getOrDefault(seed());
  }

  default S setSeed(long value) {
    return (S) set(seed(), value);
  }

  /** Fraction of the rows held out for validation after each round, default 0. */
  default DoubleParam validationFraction() {
    return stageParams().validationFraction;
  }

  default double getValidationFraction() {
    return (Double) getOrDefault(validationFraction());
  }

  default S setValidationFraction(double value) {
    return (S) set(validationFraction(), value);
  }

  /** Hadoop directory for checkpoints; empty (default): none. */
  default Param<String> checkpointDir() {
    return stageParams().checkpointDir;
  }

  default String getCheckpointDir() {
    return (String) getOrDefault(checkpointDir());
  }

  default S setCheckpointDir(String value) {
    return (S) set(checkpointDir(), value);
  }
}
