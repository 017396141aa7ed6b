package org.sparknet.api.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.train.Averaging;
import org.sparknet.ndarray.Shape;

/** Params, validation and schemas of the SparkNet stages; no Spark session, no engine. */
class SparkNetParamsTest {

  private static StructType schema(int featureSize) {
    return new StructType()
        .add("id", DataTypes.LongType)
        .add(new AttributeGroup("features", featureSize).toStructField())
        .add("label", DataTypes.DoubleType);
  }

  @Test
  void defaultsAreSparkMlConventions() {
    SparkNetClassifier c = new SparkNetClassifier();
    assertTrue(c.uid().startsWith("sparkNetClassifier_"));
    assertEquals("caffe", c.getEngine());
    assertEquals("features", c.getFeaturesCol());
    assertEquals("label", c.getLabelCol());
    assertEquals("prediction", c.getPredictionCol());
    assertEquals("probability", c.getProbabilityCol());
    assertEquals("rawPrediction", c.getRawPredictionCol());
    assertEquals(50, c.getTau());
    assertEquals(0, c.getNumWorkers());
    assertEquals(0, c.getBatchSize());
    assertEquals(10, c.getMaxRounds());
    assertEquals("plain", c.getAveraging());
    assertEquals(0.0, c.getValidationFraction());
    assertArrayEquals(new int[0], c.getInputShape());
    assertFalse(c.isDefined(c.solverText()), "the net has no default");
    SparkNetEstimator e = new SparkNetEstimator();
    assertEquals("output", e.getOutputCol());
    assertEquals("", e.getPredictionCol());
  }

  @Test
  void everyParamIsListedOnceAndExplained() {
    List<String> names =
        Arrays.stream(new SparkNetClassifier().params()).map(Param::name).sorted().toList();
    assertEquals(
        List.of(
            "adaptiveTau",
            "alpha",
            "averaging",
            "batchSize",
            "checkpointDir",
            "compress",
            "dataBlob",
            "device",
            "earlyStoppingPatience",
            "engine",
            "featuresCol",
            "initialWeights",
            "inputShape",
            "labelBlob",
            "labelCol",
            "learningRate",
            "maxEpochs",
            "maxOverhead",
            "maxRounds",
            "netText",
            "numWorkers",
            "outputBlob",
            "predictionCol",
            "probabilityCol",
            "rawPredictionCol",
            "seed",
            "solverText",
            "staleness",
            "targetMetric",
            "targetValue",
            "tau",
            "tauMax",
            "thresholds",
            "timeBudget",
            "validationCol",
            "validationFraction",
            "verbose",
            "workersPerGpu"),
        names);
    assertTrue(new SparkNetClassifier().explainParams().contains("tau: solver steps per worker"));
  }

  @Test
  void validatorsRejectBadValues() {
    SparkNetClassifier c = new SparkNetClassifier();
    assertThrows(IllegalArgumentException.class, () -> c.setTau(0));
    assertThrows(IllegalArgumentException.class, () -> c.setMaxRounds(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setNumWorkers(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setWorkersPerGpu(-1));
    assertEquals(2, c.setWorkersPerGpu(2).getWorkersPerGpu());
    assertThrows(IllegalArgumentException.class, () -> c.setBatchSize(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setLearningRate(-0.1));
    assertThrows(IllegalArgumentException.class, () -> c.setAveraging("mean"));
    assertThrows(IllegalArgumentException.class, () -> c.setAlpha(1.5));
    assertThrows(IllegalArgumentException.class, () -> c.setStaleness(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setValidationFraction(1.0));
    assertThrows(IllegalArgumentException.class, () -> c.setInputShape(new int[] {1, 0, 28}));
    assertThrows(IllegalArgumentException.class, () -> c.setDevice("tpu"));
    assertThrows(IllegalArgumentException.class, () -> c.setSolverText(" "));
    c.setAveraging("easgd").setAlpha(0.9).setDevice("gpu:1").setTau(1);
    assertEquals("easgd", c.getAveraging());
    assertEquals(0.9, c.getAlpha());
    assertEquals(Averaging.elastic(0.9), StageTraining.averaging(c));
    // A broken build (the stage mapping "allreduce" to plain averaging) failed here.
    assertEquals(Averaging.ALL_REDUCE, StageTraining.averaging(c.setAveraging("allreduce")));
    assertEquals(Averaging.downpour(), StageTraining.averaging(c.setAveraging("downpour")));
    assertEquals(
        Averaging.asyncElastic(0.9), StageTraining.averaging(c.setAveraging("easgd-async")));
  }

  /**
   * The staleness bound reaches the trainer from both asynchronous modes, and both kinds of stage
   * take it; the synchronous modes ignore it as they ignore alpha. With the stage passing the
   * default bound instead of the param, this failed: "expected: <downpour(staleness=4)> but was:
   * <downpour(staleness=32)>".
   */
  @Test
  void theStalenessBoundReachesTheTrainer() {
    SparkNetClassifier c = new SparkNetClassifier();
    assertEquals(Averaging.DEFAULT_STALENESS, c.getStaleness());
    c.setStaleness(4).setAlpha(0.25);
    assertEquals(Averaging.downpour(4), StageTraining.averaging(c.setAveraging("downpour")));
    assertEquals(
        Averaging.asyncElastic(0.25, 4), StageTraining.averaging(c.setAveraging("easgd-async")));
    assertEquals(Averaging.PLAIN, StageTraining.averaging(c.setAveraging("plain")));
    SparkNetEstimator e = new SparkNetEstimator().setAveraging("downpour").setStaleness(0);
    assertEquals(Averaging.downpour(0), StageTraining.averaging(e));
    assertEquals(0, e.copy(new ParamMap()).getStaleness());
  }

  @Test
  void copyTakesExtraParamsAndLeavesTheOriginal() {
    SparkNetClassifier c = new SparkNetClassifier().setTau(7).setSolverText("s");
    SparkNetClassifier d = c.copy(new ParamMap().put(c.tau().w(9)));
    assertNotSame(c, d);
    assertEquals(c.uid(), d.uid());
    assertEquals(9, d.getTau());
    assertEquals(7, c.getTau());
    assertEquals("s", d.getSolverText());

    WeightCollection w =
        new WeightCollection()
            .put("fc", List.of(new WeightCollection.Tensor(Shape.of(2), new float[] {1, 2})));
    SparkNetClassificationModel m = new SparkNetClassificationModel("m1", w).setTau(3);
    w.get("fc").get(0).data()[0] = 99; // the model keeps its own copy
    SparkNetClassificationModel n = m.copy(ParamMap.empty());
    assertEquals(3, n.getTau());
    assertEquals(1f, n.weights().get("fc").get(0).data()[0]);
  }

  @Test
  void schemaOfClassifierAndGeneralModel() {
    StructType out =
        new SparkNetClassifier().setInputShape(new int[] {1, 2, 2}).transformSchema(schema(4));
    assertEquals(
        List.of("id", "features", "label", "rawPrediction", "probability", "prediction"),
        List.of(out.fieldNames()));
    assertEquals(SQLDataTypes.VectorType(), out.apply("probability").dataType());
    assertEquals(DataTypes.DoubleType, out.apply("prediction").dataType());

    StructType noProb =
        new SparkNetClassificationModel(new WeightCollection())
            .setProbabilityCol("")
            .setRawPredictionCol("")
            .transformSchema(
                new StructType()
                    .add("id", DataTypes.LongType)
                    .add(new AttributeGroup("features", 4).toStructField()));
    assertEquals(List.of("id", "features", "prediction"), List.of(noProb.fieldNames()));

    StructType general =
        new SparkNetModel(new WeightCollection())
            .setOutputCol("emb")
            .setPredictionCol("y")
            .transformSchema(schema(4));
    assertEquals(
        DataTypes.createArrayType(DataTypes.FloatType, false), general.apply("emb").dataType());
    assertEquals(DataTypes.DoubleType, general.apply("y").dataType());
  }

  @Test
  void badColumnsAreNamed() {
    SparkNetClassifier c = new SparkNetClassifier().setInputShape(new int[] {1, 28, 28});
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> c.transformSchema(schema(3)));
    assertTrue(
        e.getMessage()
            .startsWith(
                "Features column 'features' has 3 values a row but inputShape [1, 28, 28]"
                    + " expects 784"),
        e.getMessage());

    StructType text = new StructType().add("features", DataTypes.StringType).add("label", "double");
    e = assertThrows(IllegalArgumentException.class, () -> c.transformSchema(text));
    assertTrue(
        e.getMessage()
            .contains(
                "'features' must be a Spark ML Vector, array<float> or"
                    + " array<double> but is string"),
        e.getMessage());

    StructType ints =
        new StructType()
            .add("features", DataTypes.createArrayType(DataTypes.IntegerType))
            .add("label", "double");
    assertThrows(IllegalArgumentException.class, () -> c.transformSchema(ints));

    e =
        assertThrows(
            IllegalArgumentException.class, () -> c.setLabelCol("y").transformSchema(schema(784)));
    assertTrue(e.getMessage().contains("Label column 'y' is not in the data"), e.getMessage());

    StructType taken = schema(784).add("prediction", DataTypes.DoubleType);
    e =
        assertThrows(
            IllegalArgumentException.class, () -> c.setLabelCol("label").transformSchema(taken));
    assertTrue(
        e.getMessage().contains("Output column 'prediction' already exists"), e.getMessage());

    // Arrays carry no size: accepted here, checked when rows are read.
    StructType floats =
        new StructType()
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType);
    assertEquals(5, c.transformSchema(floats).size());
  }

  /**
   * The training params' defaults, their validators, and what copy keeps: CrossValidator and
   * OneVsRest fit copies. Broken on purpose: a copy that dropped the fit's inputs had no listener.
   */
  @Test
  void trainingParamsDefaultsAndCopies() {
    SparkNetClassifier c = new SparkNetClassifier();
    assertTrue(c.getVerbose());
    assertEquals("", c.getInitialWeights());
    assertEquals(0.0, c.getMaxEpochs());
    assertEquals("", c.getTargetMetric());
    assertFalse(c.isDefined(c.targetValue()), "a target needs its value set");
    assertEquals(0, c.getEarlyStoppingPatience());
    assertEquals("", c.getValidationCol());
    assertThrows(IllegalArgumentException.class, () -> c.setMaxEpochs(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setEarlyStoppingPatience(-1));
    assertThrows(IllegalArgumentException.class, () -> c.setThresholds(new double[] {0, 0, 1}));
    assertEquals("none", c.getCompress());
    assertFalse(c.getAdaptiveTau());
    assertEquals(0.05, c.getMaxOverhead());
    assertEquals(1000, c.getTauMax());
    assertThrows(IllegalArgumentException.class, () -> c.setCompress("int8"));
    assertThrows(IllegalArgumentException.class, () -> c.setMaxOverhead(1.0));
    assertThrows(IllegalArgumentException.class, () -> c.setMaxOverhead(0));
    assertThrows(IllegalArgumentException.class, () -> c.setTauMax(0));

    org.sparknet.api.train.RoundListener l = m -> {};
    c.addRoundListener(l).setMaxEpochs(2.5).setThresholds(new double[] {1, 2});
    SparkNetClassifier d = c.copy(ParamMap.empty());
    assertEquals(List.of(l), d.getRoundListeners());
    assertEquals(2.5, d.getMaxEpochs());
    assertArrayEquals(new double[] {1, 2}, d.getThresholds(), 0);
    d.removeRoundListener(l);
    assertEquals(List.of(l), c.getRoundListeners(), "the copy has its own list");
    assertEquals(
        List.of(l),
        new SparkNetEstimator().addRoundListener(l).copy(ParamMap.empty()).getRoundListeners());

    List<String> modelParams =
        Arrays.stream(new SparkNetClassificationModel(new WeightCollection()).params())
            .map(Param::name)
            .toList();
    for (String training :
        List.of(
            "verbose",
            "initialWeights",
            "maxEpochs",
            "validationCol",
            "compress",
            "tauMax",
            "workersPerGpu")) {
      assertFalse(modelParams.contains(training), "models carry no training params: " + training);
    }
    assertTrue(modelParams.contains("thresholds"));
    assertTrue(new SparkNetModel(new WeightCollection()).uid().startsWith("sparkNetModel_"));
    assertEquals(
        "m7", new SparkNetClassificationModel("m7", new WeightCollection()).featuresCol().parent());
  }
}
