package org.sparknet.api.spark;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.sparknet.api.train.RoundListener;
import org.sparknet.api.train.TimeBudget;
import scala.runtime.AbstractFunction1;

/**
 * What only an estimator's {@code fit} reads, held for the accessor methods of {@link
 * TrainingParams}: the {@link Param}s (saved with the estimator, not copied into the model) and the
 * fit's inputs that are no params because they are objects, not JSON (round listeners, a validation
 * DataFrame). The inputs are kept by {@code copy}, as {@code CrossValidator} and {@code OneVsRest}
 * fit copies, but not saved.
 */
public final class FitParams implements Serializable {
  private static final long serialVersionUID = 1L;

  final BooleanParam verbose;
  final Param<String> initialWeights;
  final DoubleParam maxEpochs;
  final Param<String> timeBudget;
  final Param<String> targetMetric;
  final DoubleParam targetValue;
  final IntParam earlyStoppingPatience;
  final Param<String> validationCol;
  final Param<String> compress;
  final BooleanParam adaptiveTau;
  final DoubleParam maxOverhead;
  final IntParam tauMax;
  final IntParam workersPerGpu;

  private transient List<RoundListener> listeners = new CopyOnWriteArrayList<>();
  private transient Dataset<Row> validationData;

  FitParams(Params owner) {
    verbose =
        new BooleanParam(
            owner, "verbose", "print one line per training round (with an ETA) on standard output");
    initialWeights =
        new Param<>(
            owner,
            "initialWeights",
            "weights file (URI; Caffe: .caffemodel) to start from, copied by layer name: layers"
                + " it lacks keep their initial weights; empty: none");
    maxEpochs =
        new DoubleParam(
            owner,
            "maxEpochs",
            "stop after this many passes over the training data; 0: no epoch limit",
            ParamValidators.gtEq(0));
    timeBudget =
        new Param<>(
            owner,
            "timeBudget",
            "wall-clock budget of fit (90s, 5m, 1h30m), counted from the trainer's start: the"
                + " steps are planned from the measured pace to end inside it, a poly learning rate"
                + " reaches 0 at the last of them; empty: none",
            new DurationOrEmpty());
    targetMetric =
        new Param<>(
            owner,
            "targetMetric",
            "validation output (e.g. accuracy, loss) that stops training once it reaches"
                + " targetValue, and that early stopping watches; empty: none (early stopping"
                + " watches loss)");
    targetValue =
        new DoubleParam(
            owner,
            "targetValue",
            "value of targetMetric that stops training (at most for loss or error, at least for"
                + " others)");
    earlyStoppingPatience =
        new IntParam(
            owner,
            "earlyStoppingPatience",
            "stop after this many validations without improvement; 0: never",
            ParamValidators.gtEq(0));
    validationCol =
        new Param<>(
            owner,
            "validationCol",
            "boolean or integer column; rows where it is true (non-zero) are held out and"
                + " tested after every round instead of trained on; empty: none");
    compress =
        new Param<>(
            owner,
            "compress",
            "none, fp16 or bf16: workers send their offset from the round's centre in 16 bits (half"
                + " the bytes); the driver averages in 32 bits",
            ParamValidators.inArray(new String[] {"none", "fp16", "bf16"}));
    adaptiveTau =
        new BooleanParam(
            owner,
            "adaptiveTau",
            "choose each round's tau (starting from tau) so that broadcast, aggregation and"
                + " scheduling stay under maxOverhead of the round");
    maxOverhead =
        new DoubleParam(
            owner,
            "maxOverhead",
            "with adaptiveTau: the largest share of a round outside the solver steps, in (0, 1)",
            ParamValidators.inRange(0, 1, false, false));
    tauMax =
        new IntParam(
            owner,
            "tauMax",
            "with adaptiveTau: the largest tau it chooses",
            ParamValidators.gtEq(1));
    workersPerGpu = workersPerGpu(owner);
  }

  private static IntParam workersPerGpu(Params owner) {
    return new IntParam(
        owner,
        "workersPerGpu",
        "with device gpu where Spark assigns no GPU (local mode): K workers on each GPU,"
            + " partition p on GPU (p / K) mod N, at most K×N workers; 0: one per GPU",
        ParamValidators.gtEq(0));
  }

  void setDefaults(Params owner) {
    owner.setDefault(verbose, (Object) true);
    owner.setDefault(initialWeights, "");
    owner.setDefault(maxEpochs, (Object) 0.0);
    owner.setDefault(timeBudget, "");
    owner.setDefault(targetMetric, "");
    owner.setDefault(earlyStoppingPatience, (Object) 0);
    owner.setDefault(validationCol, "");
    owner.setDefault(compress, "none");
    owner.setDefault(adaptiveTau, (Object) false);
    owner.setDefault(maxOverhead, (Object) 0.05);
    owner.setDefault(tauMax, (Object) 1000);
    owner.setDefault(workersPerGpu, (Object) 0);
  }

  /** The timeBudget validator: empty, or a duration {@link TimeBudget#parseDuration} reads. */
  private static final class DurationOrEmpty extends AbstractFunction1<String, Object>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Object apply(String v) {
      try {
        return v.isBlank() || TimeBudget.parseDuration(v, "timeBudget") != null;
      } catch (IllegalArgumentException e) {
        return false;
      }
    }
  }

  List<RoundListener> listeners() {
    return listeners;
  }

  Dataset<Row> validationData() {
    return validationData;
  }

  void setValidationData(Dataset<Row> df) {
    this.validationData = df;
  }

  /** Takes the non-param inputs of {@code other} (the stage this one's stage was copied from). */
  void copyInputsFrom(FitParams other) {
    listeners = new CopyOnWriteArrayList<>(new ArrayList<>(other.listeners));
    validationData = other.validationData;
  }

  private void readObject(java.io.ObjectInputStream in)
      throws java.io.IOException, ClassNotFoundException {
    in.defaultReadObject();
    listeners = new CopyOnWriteArrayList<>();
  }
}
