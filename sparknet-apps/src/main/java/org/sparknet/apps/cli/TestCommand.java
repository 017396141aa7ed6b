package org.sparknet.apps.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.train.SparkNetTrainer;
import org.sparknet.api.train.TestNetResult;
import org.sparknet.api.train.TrainerConfig;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Tests a .caffemodel on a dataset on Spark and prints the test net's outputs. */
@Command(
    name = "test",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the TEST phase of a Caffe net with the given weights over a dataset on Spark and print"
          + " the mean of each scalar output (loss, accuracy)."
    })
public final class TestCommand implements Callable<Integer> {
  @Mixin InferenceOptions inference = new InferenceOptions();

  @ArgGroup(exclusive = false, multiplicity = "1")
  TestData testData = new TestData();

  @Override
  public Integer call() {
    StoragePath weightsFile = inference.checkForInference();
    DataInput data = testData.open(inference.data);
    InferenceOptions.Setup setup = inference.setup(data);
    NetDefinition def = setup.def();
    SparkSession spark = inference.spark.session("SparkNet test");
    try {
      JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      TrainerConfig cfg =
          TrainerConfig.builder()
              .setNetDefinition(def)
              .optWorkers(inference.spark.workers("SparkNet test"))
              .optTau(1)
              .build();
      try (SparkNetTrainer trainer = new SparkNetTrainer(sc, cfg)) {
        trainer.setWeights(NetOptions.loadWeights(def, weightsFile));
        trainer.setValidationData(
            data.toRdd(
                spark, inference.spark.workers("SparkNet test"), setup.loading(), inference.data));
        List<TestNetResult> metrics = trainer.testAll(); // every test net, each on --test
        System.out.printf(
            "Test of %s on %s examples%s: %s%n",
            weightsFile, data.describeCount(), data.skippedReport(), TrainLoop.format(metrics));
      }
    } finally {
      spark.stop();
    }
    return SparkNetCli.EXIT_OK;
  }
}
