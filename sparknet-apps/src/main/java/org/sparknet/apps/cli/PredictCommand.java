package org.sparknet.apps.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
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
  @Mixin NetOptions netOptions = new NetOptions();

  @Option(
      names = "--weights",
      required = true,
      paramLabel = "FILE.caffemodel",
      description = "Trained weights.")
  Path weights;

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

  @Mixin DataOptions dataOptions = new DataOptions();

  @Option(
      names = "--output",
      required = true,
      paramLabel = "DIR",
      description = "Parquet directory to create (must not exist).")
  Path output;

  @Option(
      names = "--blob",
      paramLabel = "NAME",
      description =
          "Blob to output (default: the net's class scores, as the Spark ML classifier reads"
              + " them).")
  String blob;

  @Mixin SparkOptions sparkOptions = new SparkOptions();

  @Mixin DeviceOptions deviceOptions = new DeviceOptions();

  @Override
  public Integer call() {
    dataOptions.dataFormat();
    sparkOptions.check();
    NetOptions.existing(netOptions.solver, "--solver");
    NetOptions.existing(netOptions.net, "--net");
    NetOptions.existing(weights, "--weights");
    DataInput data =
        DataInput.open(dataOptions, input, "--input", inputLabels, "--input-labels", false);
    if (Files.exists(output) && !isEmptyDirectory(output)) {
      throw new IllegalArgumentException(
          "--output " + output + " already exists; choose a new directory");
    }
    DataInput.Loading loading = data.setup(netOptions, dataOptions);
    NetDefinition def = deviceOptions.apply(loading.def(), sparkOptions.master);
    String b = blob != null ? blob : NetProvider.forEngine(def.engine()).defaultScoresBlob(def);
    WeightCollection w = NetOptions.loadWeights(def, weights);
    SparkSession spark = sparkOptions.session("SparkNet predict");
    long written;
    boolean labelled;
    try {
      if (Files.exists(output)) {
        Files.delete(output); // an empty directory: Spark wants to create it
      }
      labelled = data.labelled(dataOptions, spark);
      BatchInference.predict(
              spark,
              def,
              w,
              data.toRdd(
                  spark, sparkOptions.workers("SparkNet predict"), loading, false, dataOptions),
              labelled,
              b)
          .write()
          .parquet(output.toString());
      written = spark.read().parquet(output.toString()).count();
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot replace the empty directory " + output, e);
    } finally {
      spark.stop();
    }
    System.out.printf(
        "Predicted %,d examples (blob '%s'%s%s) into %s%n",
        written, b, labelled ? ", with labels" : ", no labels", data.skippedReport(), output);
    return SparkNetCli.EXIT_OK;
  }

  private static boolean isEmptyDirectory(Path p) {
    if (!Files.isDirectory(p)) {
      return false;
    }
    try (Stream<Path> s = Files.list(p)) {
      return s.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }
}
