package org.sparknet.apps.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.ImageTransform;
import org.sparknet.apps.data.MeanImage;
import org.sparknet.caffe.CaffeDataLayers;

/**
 * One dataset named on the command line (--train, --test or --input) in one of the {@link
 * DataFormat}s: opened and checked on the driver before Spark starts (files exist, sizes, labels),
 * then read on the executors as an RDD of examples.
 */
final class DataInput {
  private final DataFormat format;
  private final String option;
  private final String uri;
  private final DataSource source;

  private DataInput(DataFormat format, DataRequest request, DataSource source) {
    this.format = format;
    this.option = request.option();
    this.uri = request.uri();
    this.source = source;
  }

  /**
   * Opens the data {@code uri} names. {@code labelsUri}/{@code labelsOption} are IDX's separate
   * labels file; {@code labelsRequired} is false for predict.
   */
  static DataInput open(
      DataOptions o,
      String uri,
      String option,
      String labelsUri,
      String labelsOption,
      boolean labelsRequired) {
    DataFormat f = o.dataFormat();
    return open(
        f, new DataRequest(uri, option, labelsUri, labelsOption, labelsRequired, o.settings()));
  }

  /** Opens what {@code r} names as {@code f}. */
  static DataInput open(DataFormat f, DataRequest r) {
    return new DataInput(f, r, f.open(r));
  }

  /** The option and URI, e.g. "--train data/train.bin", for messages. */
  String describe() {
    return option + " " + uri;
  }

  DataFormat format() {
    return format;
  }

  /** Examples, or -1 when only Spark can tell (Parquet). */
  long count() {
    return source.count();
  }

  /** Class names (images), else null. */
  List<String> classes() {
    return source.classes();
  }

  /** The number of examples for messages (after skipped images, once they were read). */
  String describeCount() {
    long n = count();
    return n < 0 ? format.name() : String.format("%,d", n);
  }

  /**
   * The net definition and how to load the data for it: the shape of one example follows from the
   * format, the net's data layers and the options. Examples are loaded uncropped: the net crops and
   * mirrors them per batch, and a mean file is subtracted by the loader (see {@link
   * CaffeDataLayers}).
   */
  Loading setup(NetOptions n, DataOptions o) {
    o.check(format);
    if (format.kind() == DataFormat.Kind.RAW) {
      return rawLoading(n);
    }
    CaffeFiles files = n.files();
    CaffeDataLayers.Rewritten nt = rewriteDataLayers(files, n, o);
    MeanImage mean = nt.meanFile() == null ? null : MeanImage.read(nt.meanFile());
    if (mean != null && format.kind() != DataFormat.Kind.IMAGE) {
      throw new IllegalArgumentException(
          "The net's transform_param has a mean_file, which SparkNet does not subtract from "
              + format.name()
              + " data (its rows are flat vectors); remove it from the net"
              + " (--mean-value works)");
    }
    int crop = nt.cropSize();
    List<Integer> meanShape =
        mean == null ? null : List.of(mean.channels(), mean.height(), mean.width());
    List<Integer> shape =
        source.sampleShape(
            new SampleHints(o.imageSize, meanShape, crop, n.sampleShape, nt.inputShape()));
    boolean resized = format.settings().contains("image-size");
    int h = format.kind() == DataFormat.Kind.IMAGE ? shape.get(1) : 0;
    int w = format.kind() == DataFormat.Kind.IMAGE ? shape.get(2) : 0;
    if (crop > 0 && h > 0) {
      new ImageTransform(crop, false, false, 0).check(h, w, option + " data");
    }
    if (mean != null) {
      mean.check(shape.get(0), h, w, "the images of " + option);
    }
    if (format.kind() == DataFormat.Kind.IMAGE
        && n.sampleShape != null
        && !n.sampleShape.equals(shape)) {
      throw new IllegalArgumentException(
          "--sample-shape "
              + n.sampleShape
              + " does not match the "
              + shape
              + " examples that --format "
              + format.name()
              + (resized ? " gives after resizing (uncropped: the net crops)" : " holds"));
    }
    NetDefinition def =
        n.definition(new CaffeFiles(nt.solverText(), nt.netText(), files.netSource()), shape);
    // Only the mean image is subtracted at load time; crops and flips are the net's, per batch,
    // so one transform serves both phases.
    return new Loading(def, n.scale(), resized ? h : 0, resized ? w : 0, mean);
  }

  /**
   * The net's data layers with the command line's overrides; a relative mean_file is looked for
   * beside the solver, beside the net, then in the current directory.
   */
  private static CaffeDataLayers.Rewritten rewriteDataLayers(
      CaffeFiles files, NetOptions n, DataOptions o) {
    List<StoragePath> baseDirs = new ArrayList<>();
    if (n.solver != null) {
      baseDirs.add(StoragePath.of(n.solver).parent());
    }
    if (n.net != null) {
      baseDirs.add(StoragePath.of(n.net).parent());
    }
    baseDirs.add(StoragePath.of(Path.of("")));
    return CaffeDataLayers.rewrite(
        files.solverText(),
        files.netText(),
        files.netSource(),
        new CaffeDataLayers.Overrides(o.crop, o.mirror, o.meanValue, o.batchSize, baseDirs));
  }

  /** Values as stored, times --scale; a net with Input layers needs --scale given. */
  private Loading rawLoading(NetOptions n) {
    NetDefinition def = n.definition(source.sampleShape(SampleHints.NONE));
    n.checkRawPixels(def, option);
    return new Loading(def, n.scale(), 0, 0, null);
  }

  /**
   * How to load: the definition, the pixel scale, the size images are resized to (0 when the format
   * fixes it) and the mean image subtracted as examples are read, if any.
   */
  record Loading(NetDefinition def, float scale, int height, int width, MeanImage mean) {}

  /** The data as {@code partitions} partitions. */
  JavaRDD<Example> toRdd(SparkSession spark, int partitions, Loading l, DataOptions o) {
    float[] mean = l.mean() == null ? null : l.mean().data();
    return source.read(
        spark, new ReadPlan(partitions, l.scale(), l.height(), l.width(), mean, o.skipBadImages));
  }

  /** Whether the examples carry labels (predict writes null labels otherwise). */
  boolean labelled() {
    return source.labelled();
  }

  /** "; N undecodable images skipped" once the data was read with --skip-bad-images, else "". */
  String skippedReport() {
    return source.report();
  }
}
