package org.sparknet.apps.cli;

import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.predict.BatchInference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Batch inference over a dataset on the executors, written as Parquet. */
@Command(
    name = "predict",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run a Caffe net with the given weights over a dataset on Spark and write Parquet with the"
          + " columns index, label (null without labels), prediction (argmax of the blob) and the"
          + " blob as array<float>."
    })
public final class PredictCommand implements Callable<Integer> {
  @Option(
      names = "--input",
      required = true,
      paramLabel = "URI",
      description = "Images to predict.")
  String input;

  @Option(
      names = "--input-labels",
      paramLabel = "URI",
      description =
          "idx: labels of --input (default: found by the MNIST naming convention, if there).")
  String inputLabels;

  @Option(
      names = "--output",
      required = true,
      paramLabel = "DIR",
      description =
          "Parquet directory to create (must not exist, or be empty), on any Hadoop file system.")
  String output;

  @Option(
      names = "--blob",
      paramLabel = "NAME",
      description =
          "Blob to output (default: the net's class scores, as the Spark ML classifier reads"
              + " them).")
  String blob;

  @Mixin InferenceOptions inference = new InferenceOptions();

  @Override
  public Integer call() {
    StoragePath weightsFile = inference.checkForInference();
    DataInput data =
        DataInput.open(inference.data, input, "--input", inputLabels, "--input-labels", false);
    StoragePath out = TrainCommand.outputOption(output, "--output");
    if (out.exists() && !(out.isDirectory() && out.list().isEmpty())) {
      throw new IllegalArgumentException(
          "--output " + out + " already exists; choose a new directory");
    }
    out.checkWritable(true, "--output"); // before Spark starts and the net runs
    InferenceOptions.Setup setup = inference.setup(data);
    NetDefinition def = setup.def();
    String b = blob != null ? blob : NetProvider.forEngine(def.engine()).defaultScoresBlob(def);
    WeightCollection w = NetOptions.loadWeights(def, weightsFile);
    SparkSession spark = inference.spark.session("SparkNet predict");
    long written;
    boolean labelled;
    try {
      if (out.exists()) {
        out.delete(); // an empty directory: Spark wants to create it
      }
      labelled = data.labelled();
      BatchInference.predict(
              spark,
              def,
              w,
              data.toRdd(
                  spark,
                  inference.spark.workers("SparkNet predict"),
                  setup.loading(),
                  inference.data),
              labelled,
              b)
          .write()
          .parquet(out.toString());
      written = spark.read().parquet(out.toString()).count();
    } finally {
      spark.stop();
    }
    System.out.printf(
        "Predicted %,d examples (blob '%s'%s%s) into %s%n",
        written, b, labelled ? ", with labels" : ", no labels", data.skippedReport(), out);
    return SparkNetCli.EXIT_OK;
  }
}
