package org.sparknet.apps.cli;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.db.CaffeDbWriter;
import org.sparknet.apps.data.db.DatumShape;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Data in any format SparkNet reads written as Parquet, for users who move their data to Spark: a
 * {@code features} column ({@code array<float>}, one example in channels x height x width order,
 * the values as stored) and a {@code label} column (double), read on the executors and written by
 * Spark. Or, the other way, written as Caffe's LMDB or LevelDB by Caffe's own database classes, for
 * users who take their data to Caffe: the examples come to the driver partition by partition and it
 * writes them, in the data's order, as {@code convert_mnist_data} does.
 */
@Command(
    name = "convert",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Convert data that SparkNet reads (--format lmdb, leveldb, idx, cifar, images, ...) to"
          + " Parquet: a features column (array<float>, channels x height x width, values as"
          + " stored) and a label column. Train on it with --format parquet --sample-shape C,H,W"
          + " (printed at the end).",
      "With --to lmdb or leveldb it writes a Caffe database instead, as Caffe's"
          + " convert_mnist_data does: keys %%08d in the data's order, each a raw Datum of the"
          + " data's shape with data bytes (float_data where a value is not an integer 0-255) and"
          + " the label, which must be an integer. The driver writes it, at its disk's speed;"
          + " to a URI that is not local it is built in the local temporary directory and copied"
          + " up when finished."
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
      description =
          "The Parquet directory or Caffe database to write; it must not exist (for a database,"
              + " its parent must).")
  String output;

  @Option(
      names = "--sample-shape",
      paramLabel = "C,H,W",
      split = ",",
      hideParamSyntax = true,
      description = "parquet: the shape of one example (for a flat vector of N values: 1,1,N).")
  List<Integer> sampleShape;

  @Option(
      names = "--to",
      paramLabel = "FORMAT",
      description = "What to write: parquet (default), lmdb or leveldb.")
  String to = "parquet";

  @Mixin DataOptions data = new DataOptions();

  @Mixin SparkOptions spark = new SparkOptions();

  @Override
  public Integer call() {
    DataFormat f = data.dataFormat();
    data.check(f);
    spark.check();
    StoragePath out = TrainCommand.outputOption(output, "--output");
    CaffeDbWriter.Backend backend = backend();
    if (backend == null) {
      if (out.exists()) {
        throw new IllegalArgumentException(
            "--output " + out + " already exists; choose a new directory");
      }
      out.checkWritable(true, "--output");
    }
    if (sampleShape != null) {
      SampleShapes.check(sampleShape, "1,28,28");
    }
    DataSource source =
        f.open(
            new DataRequest(
                input, "--input", inputLabels, "--input-labels", false, data.settings()));
    List<Integer> shape =
        source.sampleShape(new SampleHints(data.imageSize, null, 0, sampleShape, null));
    int h = f.settings().contains("image-size") ? shape.get(1) : 0;
    int w = f.settings().contains("image-size") ? shape.get(2) : 0;
    try (CaffeDbWriter db =
        backend == null
            ? null
            : CaffeDbWriter.create(backend, out, datumShape(shape), "--output")) {
      SparkSession session = spark.session("SparkNet convert");
      try {
        ReadPlan plan =
            new ReadPlan(spark.workers("SparkNet convert"), 1f, h, w, null, data.skipBadImages);
        long rows =
            db == null
                ? writeParquet(session, source, plan, out)
                : write(db, session, source, plan);
        String shapeText = shape.toString().replaceAll("[\\[\\] ]", "");
        System.out.printf(
            "Converted %,d examples of shape %s from %s (%s)%s to %s (%s)%s%n",
            rows,
            shape,
            input,
            f.name(),
            source.report(),
            out,
            to,
            db == null ? "; train on it with --format parquet --sample-shape " + shapeText : "");
        return SparkNetCli.EXIT_OK;
      } finally {
        session.stop();
      }
    }
  }

  /** The database --to names, or null for Parquet. */
  private CaffeDbWriter.Backend backend() {
    return switch (to.toLowerCase(Locale.ROOT)) {
      case "parquet" -> null;
      case "lmdb" -> CaffeDbWriter.Backend.LMDB;
      case "leveldb" -> CaffeDbWriter.Backend.LEVELDB;
      default ->
          throw new IllegalArgumentException(
              "--to " + to + " is not a format convert writes; use parquet, lmdb or leveldb");
    };
  }

  /** A Datum's shape for the data's: C,H,W as it is, a feature vector of n as n x 1 x 1. */
  private DatumShape datumShape(List<Integer> shape) {
    if (shape.size() == 3) {
      return new DatumShape(shape.get(0), shape.get(1), shape.get(2));
    }
    if (shape.size() == 1) {
      return new DatumShape(shape.get(0), 1, 1);
    }
    throw new IllegalArgumentException(
        "--to "
            + to
            + ": --input "
            + input
            + " has examples of shape "
            + shape
            + ", but a Caffe Datum holds channels x height x width; give --sample-shape C,H,W");
  }

  private static long writeParquet(
      SparkSession session, DataSource source, ReadPlan plan, StoragePath out) {
    Dataset<Row> df = source.toDataFrame(session, plan);
    df.write().parquet(out.toString());
    return session.read().parquet(out.toString()).count();
  }

  /** The driver writes: Caffe's databases have one writer. */
  private static long write(
      CaffeDbWriter db, SparkSession session, DataSource source, ReadPlan plan) {
    Iterator<Example> examples = source.read(session, plan).toLocalIterator();
    while (examples.hasNext()) {
      Example e = examples.next();
      db.put(e.features(), e.label());
    }
    return db.finish();
  }
}
