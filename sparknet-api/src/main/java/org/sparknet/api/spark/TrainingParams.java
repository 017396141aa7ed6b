package org.sparknet.api.spark;

import java.util.List;
import java.util.Objects;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.sparknet.api.train.RoundListener;

/**
 * What the SparkNet estimators take besides the params every stage has: progress output, where
 * training starts (a weights file), when it stops (epochs, a target metric, early stopping) and
 * what it validates on (a column, a DataFrame, or {@code validationFraction}). The models do not
 * carry these.
 *
 * @param <S> the estimator type, returned by the setters
 */
@SuppressWarnings("unchecked") // S is the stage itself: the setters' casts are safe
public interface TrainingParams<S extends TrainingParams<S>> extends SparkNetParams<S> {

  /** The param objects behind the accessors; not for callers. */
  FitParams fitParams();

  /** Print one line per round on standard output, with elapsed time and an ETA; default true. */
  default BooleanParam verbose() {
    return fitParams().verbose;
  }

  default boolean getVerbose() {
    return (Boolean) getOrDefault(verbose());
  }

  default S setVerbose(boolean value) {
    return (S) set(verbose(), value);
  }

  /**
   * A weights file (any Hadoop URI; for Caffe a {@code .caffemodel}, from the model zoo or a saved
   * model's {@code weights/}) to start training from, copied by layer name as {@code caffe train
   * --weights} does: layers the file lacks keep their initial weights (rename a layer to
   * re-initialise it), layers only the file has are ignored, and a layer of another shape is an
   * error naming it. Empty (default): start from the net's initial weights. A checkpoint in {@code
   * checkpointDir} wins over it.
   */
  default Param<String> initialWeights() {
    return fitParams().initialWeights;
  }

  default String getInitialWeights() {
    return (String) getOrDefault(initialWeights());
  }

  default S setInitialWeights(String uri) {
    return (S) set(initialWeights(), uri);
  }

  /** Stop after this many passes over the training data (may be fractional); 0 (default): none. */
  default DoubleParam maxEpochs() {
    return fitParams().maxEpochs;
  }

  default double getMaxEpochs() {
    return (Double) getOrDefault(maxEpochs());
  }

  default S setMaxEpochs(double value) {
    return (S) set(maxEpochs(), value);
  }

  /**
   * Fit ends inside this wall-clock budget ({@code 90s}, {@code 5m}, {@code 1h30m}), counted from
   * the trainer's start, as {@link org.sparknet.api.train.TimeBudget} plans it; empty (default):
   * none. The other limits (maxRounds, maxEpochs) still apply: set maxRounds to 0 to train by time
   * alone.
   */
  default Param<String> timeBudget() {
    return fitParams().timeBudget;
  }

  default String getTimeBudget() {
    return (String) getOrDefault(timeBudget());
  }

  default S setTimeBudget(String duration) {
    return (S) set(timeBudget(), duration);
  }

  /**
   * The validation output (a TEST-phase output of the net, e.g. "accuracy" or "loss") that stops
   * training once it reaches {@code targetValue}, and that early stopping watches; empty (default):
   * none, and early stopping watches "loss". Needs validation rows.
   */
  default Param<String> targetMetric() {
    return fitParams().targetMetric;
  }

  default String getTargetMetric() {
    return (String) getOrDefault(targetMetric());
  }

  default S setTargetMetric(String value) {
    return (S) set(targetMetric(), value);
  }

  /** The value of {@code targetMetric} that stops training: at most for loss or error names. */
  default DoubleParam targetValue() {
    return fitParams().targetValue;
  }

  default double getTargetValue() {
    return (Double) getOrDefault(targetValue());
  }

  default S setTargetValue(double value) {
    return (S) set(targetValue(), value);
  }

  /** Stop after this many validations without improvement; 0 (default): never. */
  default IntParam earlyStoppingPatience() {
    return fitParams().earlyStoppingPatience;
  }

  default int getEarlyStoppingPatience() {
    return (Integer) getOrDefault(earlyStoppingPatience());
  }

  default S setEarlyStoppingPatience(int value) {
    return (S) set(earlyStoppingPatience(), value);
  }

  /**
   * A boolean or integer column: rows where it is true (non-zero) are validation rows, held out and
   * tested after every round (as Horovod's estimators take it); empty (default): none.
   */
  default Param<String> validationCol() {
    return fitParams().validationCol;
  }

  default String getValidationCol() {
    return (String) getOrDefault(validationCol());
  }

  default S setValidationCol(String value) {
    return (S) set(validationCol(), value);
  }

  /**
   * Rows to validate on after every round, with the same features and label columns as the training
   * rows (as BigDL's estimators take them); null (default): none. Not a param: it is kept by {@code
   * copy} but not saved.
   */
  default S setValidationData(Dataset<?> df) {
    fitParams().setValidationData(df == null ? null : df.toDF());
    return (S) this;
  }

  default Dataset<Row> getValidationData() {
    return fitParams().validationData();
  }

  /**
   * How workers send their weights back: "none" (default, 32-bit weights), or "fp16"/"bf16" (their
   * offset from the round's centre in 16 bits, half the bytes; the driver averages in 32 bits).
   */
  default Param<String> compress() {
    return fitParams().compress;
  }

  default String getCompress() {
    return (String) getOrDefault(compress());
  }

  default S setCompress(String value) {
    return (S) set(compress(), value);
  }

  /**
   * Adaptive tau: each round's tau (the first is {@code tau}) is chosen from the rounds measured so
   * far so that broadcast, aggregation and scheduling stay under {@code maxOverhead} of the round,
   * at most {@code tauMax}; default false. Not with a deterministic run.
   */
  default BooleanParam adaptiveTau() {
    return fitParams().adaptiveTau;
  }

  default boolean getAdaptiveTau() {
    return (Boolean) getOrDefault(adaptiveTau());
  }

  default S setAdaptiveTau(boolean value) {
    return (S) set(adaptiveTau(), value);
  }

  /** With {@code adaptiveTau}: the largest overhead share, in (0, 1); default 0.05. */
  default DoubleParam maxOverhead() {
    return fitParams().maxOverhead;
  }

  default double getMaxOverhead() {
    return (Double) getOrDefault(maxOverhead());
  }

  default S setMaxOverhead(double value) {
    return (S) set(maxOverhead(), value);
  }

  /** With {@code adaptiveTau}: the largest tau; default 1000. */
  default IntParam tauMax() {
    return fitParams().tauMax;
  }

  default int getTauMax() {
    return (Integer) getOrDefault(tauMax());
  }

  default S setTauMax(int value) {
    return (S) set(tauMax(), value);
  }

  /**
   * With device "gpu" where Spark assigns the tasks no GPU (local mode): K workers share each
   * visible GPU, partition p on GPU (p / K) mod N, and more than K×N workers is an error; 0
   * (default): one per GPU, wrapping round. On a cluster with GPU resources set {@code
   * spark.task.resource.gpu.amount} to 1/K instead.
   */
  default IntParam workersPerGpu() {
    return fitParams().workersPerGpu;
  }

  default int getWorkersPerGpu() {
    return (Integer) getOrDefault(workersPerGpu());
  }

  default S setWorkersPerGpu(int value) {
    return (S) set(workersPerGpu(), value);
  }

  /**
   * Calls {@code listener} on the driver after every training round of {@code fit}, with the
   * round's metrics. Not a param: kept by {@code copy} but not saved.
   */
  default S addRoundListener(RoundListener listener) {
    fitParams().listeners().add(Objects.requireNonNull(listener, "listener"));
    return (S) this;
  }

  default S removeRoundListener(RoundListener listener) {
    fitParams().listeners().remove(listener);
    return (S) this;
  }

  default List<RoundListener> getRoundListeners() {
    return List.copyOf(fitParams().listeners());
  }
}
