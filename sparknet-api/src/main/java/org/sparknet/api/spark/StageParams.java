package org.sparknet.api.spark;

import java.io.Serializable;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.Params;
import org.sparknet.api.train.Averaging;

/**
 * The {@link Param} objects of one SparkNet stage, held for the accessor methods of {@link
 * SparkNetParams} (Java has no traits with fields). Use the stage's accessors ({@code tau()},
 * {@code getTau()}, {@code setTau(..)}), not this class.
 */
public final class StageParams implements Serializable {
  private static final long serialVersionUID = 1L;

  final Param<String> engine;
  final Param<String> solverText;
  final Param<String> netText;
  final IntArrayParam inputShape;
  final Param<String> device;
  final Param<String> dataBlob;
  final Param<String> labelBlob;
  final Param<String> featuresCol;
  final Param<String> labelCol;
  final Param<String> outputBlob;
  final IntParam tau;
  final IntParam numWorkers;
  final IntParam batchSize;
  final IntParam maxRounds;
  final DoubleParam learningRate;
  final Param<String> averaging;
  final DoubleParam alpha;
  final IntParam staleness;
  final LongParam seed;
  final DoubleParam validationFraction;
  final Param<String> checkpointDir;
  // classifier stages
  final Param<String> predictionCol;
  final Param<String> probabilityCol;
  final Param<String> rawPredictionCol;
  // general stages
  final Param<String> outputCol;

  /**
   * The column params that Spark's classifier classes already own ({@code Predictor}, {@code
   * ProbabilisticClassifier}): a classifier stage uses them instead of params of the same names.
   */
  record SparkColumns(
      Param<String> features,
      Param<String> label,
      Param<String> prediction,
      Param<String> probability,
      Param<String> rawPrediction)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private final boolean sparkColumns;

  /** The params of a general stage: every one of them new. */
  StageParams(Params owner) {
    this(owner, null);
  }

  /** The params of a stage; {@code columns}, when given, are Spark's own column params. */
  // Long: one typed declaration per param, in the order of SparkNetParams; a table of names and
  // docs would lose the params' types and validators.
  StageParams(Params owner, SparkColumns columns) {
    sparkColumns = columns != null;
    engine =
        new Param<>(
            owner,
            "engine",
            "net engine that builds the net (a NetProvider on the class path), e.g. caffe",
            nonEmpty());
    solverText =
        new Param<>(
            owner, "solverText", "solver definition (Caffe: SolverParameter prototxt)", nonEmpty());
    netText =
        new Param<>(
            owner,
            "netText",
            "net definition (Caffe: NetParameter prototxt); empty when the solver text holds it");
    inputShape =
        new IntArrayParam(
            owner,
            "inputShape",
            "shape of one example without the batch axis, e.g. [1, 28, 28]; empty: the net's"
                + " input layers declare it or, for Caffe Data layers, from the features' size n:"
                + " [1, s, s] for n = s*s, [3, s, s] for n = 3*s*s, else [n, 1, 1]. Features are"
                + " fed unscaled; a Data layer's transform_param (scale, mean_value) applies",
            new Check<>(Check.Kind.ALL_POSITIVE));
    device =
        new Param<>(
            owner,
            "device",
            "cpu, gpu:N, gpu (the task's GPU) or auto (the task's GPU, else the CPU)",
            new Check<>(Check.Kind.DEVICE));
    dataBlob = new Param<>(owner, "dataBlob", "input blob that receives the features", nonEmpty());
    labelBlob = new Param<>(owner, "labelBlob", "input blob that receives the labels", nonEmpty());
    featuresCol =
        sparkColumns
            ? columns.features()
            : new Param<>(
                owner,
                "featuresCol",
                "features column: Spark ML Vector, array<float> or array<double>",
                nonEmpty());
    labelCol =
        sparkColumns
            ? columns.label()
            : new Param<>(owner, "labelCol", "numeric label column", nonEmpty());
    outputBlob =
        new Param<>(
            owner,
            "outputBlob",
            "blob read by transform (class scores for a classifier); empty: the engine's choice");
    tau = new IntParam(owner, "tau", "solver steps per worker per round (>= 1)", gtEq(1));
    numWorkers =
        new IntParam(
            owner, "numWorkers", "workers (partitions); 0: Spark's default parallelism", gtEq(0));
    batchSize =
        new IntParam(
            owner, "batchSize", "batch size of every input; 0: the net definition's", gtEq(0));
    maxRounds =
        new IntParam(
            owner,
            "maxRounds",
            "training rounds, resumed ones included; 0: no round limit (stop by maxEpochs, a"
                + " target metric or early stopping)",
            gtEq(0));
    learningRate =
        new DoubleParam(
            owner,
            "learningRate",
            "the solver's base learning rate; 0: the solver definition's",
            gtEq(0));
    averaging =
        new Param<>(
            owner,
            "averaging",
            "plain (model averaging), easgd (elastic averaging, with alpha), allreduce (plain,"
                + " summed by the executors in a ring), downpour or easgd-async (asynchronous, a"
                + " parameter server on the driver, with staleness)",
            ParamValidators.inArray(Averaging.Mode.labels()));
    alpha =
        new DoubleParam(
            owner, "alpha", "EASGD moving rate in [0, 1]", ParamValidators.inRange(0, 1));
    staleness =
        new IntParam(
            owner,
            "staleness",
            "downpour and easgd-async: drop a push made from weights more than this many pushes"
                + " old",
            ParamValidators.gtEq(0));
    seed = new LongParam(owner, "seed", "seed of the weights and the data order");
    validationFraction =
        new DoubleParam(
            owner,
            "validationFraction",
            "fraction of the rows held out and tested after every round, in [0, 1)",
            ParamValidators.inRange(0, 1, true, false));
    checkpointDir =
        new Param<>(
            owner,
            "checkpointDir",
            "Hadoop directory for checkpoints, resumed from when it holds one; empty: none");
    predictionCol =
        sparkColumns
            ? columns.prediction()
            : new Param<>(owner, "predictionCol", "prediction column (double)");
    probabilityCol =
        sparkColumns
            ? columns.probability()
            : new Param<>(
                owner, "probabilityCol", "class probability column (Vector); empty: none");
    rawPredictionCol =
        sparkColumns
            ? columns.rawPrediction()
            : new Param<>(
                owner, "rawPredictionCol", "raw class score column (Vector); empty: none");
    outputCol =
        new Param<>(
            owner, "outputCol", "array<float> column of the output blob's values", nonEmpty());
  }

  /**
   * The defaults of every stage; classifier stages name Spark's classifier columns (set by Spark's
   * classes when they own them).
   */
  void setDefaults(Params owner, boolean classifier) {
    owner.setDefault(engine, "caffe");
    owner.setDefault(netText, "");
    owner.setDefault(inputShape, new int[0]);
    owner.setDefault(device, "cpu");
    owner.setDefault(dataBlob, "data");
    owner.setDefault(labelBlob, "label");
    if (!sparkColumns) {
      owner.setDefault(featuresCol, "features");
      owner.setDefault(labelCol, "label");
    }
    owner.setDefault(outputBlob, "");
    owner.setDefault(tau, (Object) 50);
    owner.setDefault(numWorkers, (Object) 0);
    owner.setDefault(batchSize, (Object) 0);
    owner.setDefault(maxRounds, (Object) 10);
    owner.setDefault(learningRate, (Object) 0.0);
    owner.setDefault(averaging, "plain");
    owner.setDefault(alpha, (Object) 0.5);
    owner.setDefault(staleness, (Object) Averaging.DEFAULT_STALENESS);
    owner.setDefault(seed, (Object) 0L);
    owner.setDefault(validationFraction, (Object) 0.0);
    owner.setDefault(checkpointDir, "");
    if (classifier && !sparkColumns) {
      owner.setDefault(predictionCol, "prediction");
      owner.setDefault(probabilityCol, "probability");
      owner.setDefault(rawPredictionCol, "rawPrediction");
    } else if (!classifier) {
      owner.setDefault(outputCol, "output");
      owner.setDefault(predictionCol, "");
    }
  }

  private static <T> scala.Function1<T, Object> gtEq(double v) {
    return ParamValidators.gtEq(v);
  }

  private static scala.Function1<String, Object> nonEmpty() {
    return new Check<>(Check.Kind.NON_EMPTY);
  }

  /** Validators as a named serializable class: params travel with their stage. */
  private static final class Check<T> extends scala.runtime.AbstractFunction1<T, Object>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    enum Kind {
      NON_EMPTY,
      ALL_POSITIVE,
      DEVICE
    }

    private final Kind kind;

    Check(Kind kind) {
      this.kind = kind;
    }

    @Override
    public Object apply(T value) {
      return switch (kind) {
        case NON_EMPTY -> value instanceof String s && !s.isBlank();
        case DEVICE -> value instanceof String s && s.matches("cpu|auto|gpu|gpu:\\d+");
        case ALL_POSITIVE -> {
          if (!(value instanceof int[] dims)) {
            yield false;
          }
          boolean ok = true;
          for (int d : dims) {
            ok &= d > 0;
          }
          yield ok;
        }
      };
    }
  }
}
