package org.sparknet.apps.cli;

import java.util.List;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Data in any format SparkNet reads (Caffe's LMDB or LevelDB above all) written as Parquet, for
 * users who move their data to Spark: a {@code features} column ({@code array<float>}, one example
 * in channels x height x width order, the values as stored) and a {@code label} column (double),
 * read on the executors and written by Spark.
 */
@Command(
    name = "convert",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Convert data that SparkNet reads (--format lmdb, leveldb, idx, cifar, images, ...) to"
          + " Parquet: a features column (array<float>, channels x height x width, values as"
          + " stored) and a label column. Train on it with --format parquet --sample-shape C,H,W"
          + " (printed at the end)."
    })
public final class ConvertCommand implements Callable<Integer> {
  @Option(
      names = "--input",
      required = true,
      paramLabel = "URI",
      description = "The data to convert (an LMDB or LevelDB directory, ...).")
  String input;

  @Option(
      names = "--input-labels",
      paramLabel = "URI",
      description = "idx: labels of --input (default: by MNIST's naming convention).")
  String inputLabels;

  @Option(
      names = "--output",
      required = true,
      paramLabel = "URI",
      description = "The Parquet directory to write (must not exist).")
  String output;

  @Mixin DataOptions data = new DataOptions();

  @Mixin SparkOptions spark = new SparkOptions();

  @Override
  public Integer call() {
    DataFormat f = data.dataFormat();
    data.check(f);
    spark.check();
    StoragePath out = TrainCommand.outputOption(output, "--output");
    if (out.exists()) {
      throw new IllegalArgumentException(
          "--output " + out + " already exists; choose a new directory");
    }
    out.checkWritable(true, "--output");
    DataSource source =
        f.open(
            new DataRequest(
                input, "--input", inputLabels, "--input-labels", false, data.settings()));
    List<Integer> shape = source.sampleShape(new SampleHints(data.imageSize, null, 0, null, null));
    int h = f.settings().contains("image-size") ? shape.get(1) : 0;
    int w = f.settings().contains("image-size") ? shape.get(2) : 0;
    SparkSession session = spark.session("SparkNet convert");
    try {
      ReadPlan plan =
          new ReadPlan(spark.workers("SparkNet convert"), 1f, h, w, null, data.skipBadImages);
      Dataset<Row> df = source.toDataFrame(session, plan);
      df.write().parquet(out.toString());
      long rows = session.read().parquet(out.toString()).count();
      String shapeText = shape.toString().replaceAll("[\\[\\] ]", "");
      System.out.printf(
          "Converted %,d examples of shape %s from %s (%s)%s to %s; train on it with --format"
              + " parquet --sample-shape %s%n",
          rows, shape, input, f.name(), source.report(), out, shapeText);
      return SparkNetCli.EXIT_OK;
    } finally {
      session.stop();
    }
  }
}
