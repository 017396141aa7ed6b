package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataFormats;
import picocli.CommandLine.Option;

/** The options that say how to read data, shared by train, test and predict. */
final class DataOptions {
  @Option(
      names = "--format",
      defaultValue = "idx",
      paramLabel = "FORMAT",
      description = {
        "Data format (default ${DEFAULT-VALUE}): idx (MNIST-style IDX images + labels, plain or"
            + " .gz), cifar (CIFAR-10 binary batches), cifar100 (CIFAR-100 binary batches), images"
            + " (a folder of class subfolders of JPEG/PNG; a folder of images without labels for"
            + " predict), parquet (a features column, Spark ML vector or array, and a numeric"
            + " label column), lmdb and leveldb (Caffe's databases of Datum records: raw,"
            + " float_data or encoded JPEG/PNG), hdf5 (a list file of .h5 files with data and"
            + " label datasets, as Caffe's HDF5Data reads), imagelist (a list file of 'path label'"
            + " lines, as Caffe's ImageData reads). cifar and cifar100 take one .bin file or"
            + " several, comma-separated."
      })
  String format;

  @Option(
      names = "--cifar100-label",
      defaultValue = "fine",
      paramLabel = "fine|coarse",
      description = "CIFAR-100 label to learn: fine (100 classes, default) or coarse (20).")
  String cifar100Label;

  @Option(
      names = "--image-size",
      paramLabel = "H,W",
      split = ",",
      hideParamSyntax = true,
      description =
          "images: resize every image to H x W before cropping (default: the mean file's size,"
              + " else the crop size, else"
              + " --sample-shape, else the net's Input shape).")
  List<Integer> imageSize;

  @Option(
      names = "--crop",
      paramLabel = "N",
      description =
          "cifar, images: crop N x N (random in TRAIN, centred in TEST); default: the net's"
              + " transform_param.crop_size.")
  Integer crop;

  @Option(
      names = "--mirror",
      paramLabel = "true|false",
      arity = "1",
      description =
          "cifar, images: flip left-right at random in TRAIN; default: the net's"
              + " transform_param.mirror.")
  Boolean mirror;

  @Option(
      names = "--mean-value",
      paramLabel = "V[,V...]",
      split = ",",
      hideParamSyntax = true,
      description =
          "cifar, images, parquet: per-channel means to subtract (Caffe's mean_value, in the"
              + " data's channel order: B,G,R for images, R,G,B for CIFAR); replaces the net's"
              + " mean_value and mean_file.")
  List<Float> meanValue;

  @Option(
      names = "--batch-size",
      paramLabel = "N",
      description =
          "cifar, images, parquet: replace the batch_size of the net's data layers (both phases),"
              + " e.g. to train CaffeNet's batch-256 definition on a CPU.")
  Integer batchSize;

  @Option(
      names = "--skip-bad-images",
      description =
          "images: skip undecodable files and report how many (default: the first one fails,"
              + " named).")
  boolean skipBadImages;

  @Option(
      names = "--features-col",
      defaultValue = "features",
      paramLabel = "NAME",
      description = "parquet: the features column (vector or array); default ${DEFAULT-VALUE}.")
  String featuresCol;

  @Option(
      names = "--label-col",
      defaultValue = "label",
      paramLabel = "NAME",
      description = "parquet: the numeric label column; default ${DEFAULT-VALUE}.")
  String labelCol;

  DataFormat dataFormat() {
    return DataFormats.named(format);
  }

  /** The format's settings from these options, by {@link DataFormat#settings()} names. */
  Map<String, String> settings() {
    Map<String, String> s = new HashMap<>();
    s.put("cifar100-label", cifar100Label);
    s.put("features-col", featuresCol);
    s.put("label-col", labelCol);
    s.put("skip-bad-images", Boolean.toString(skipBadImages));
    if (imageSize != null) {
      s.put("image-size", imageSize.get(0) + "," + imageSize.get(1));
    }
    return s;
  }

  /** Rejects options that do not apply to {@code f}, so that a typo does not pass silently. */
  void check(DataFormat f) {
    if (f.kind() != DataFormat.Kind.IMAGE && (crop != null || mirror != null)) {
      throw new IllegalArgumentException(
          "--crop and --mirror apply to --format "
              + formatsWhere(d -> d.kind() == DataFormat.Kind.IMAGE)
              + ", not "
              + format);
    }
    if (!f.settings().contains("image-size") && (imageSize != null || skipBadImages)) {
      throw new IllegalArgumentException(
          "--image-size and --skip-bad-images apply to --format "
              + formatsWhere(d -> d.settings().contains("image-size"))
              + ", not "
              + format);
    }
    if (f.kind() == DataFormat.Kind.RAW && (meanValue != null || batchSize != null)) {
      throw new IllegalArgumentException(
          "--mean-value and --batch-size do not apply to --format "
              + format
              + " (edit the net's transform_param and data_param)");
    }
    if (batchSize != null && batchSize < 1) {
      throw new IllegalArgumentException("--batch-size must be >= 1 but was " + batchSize);
    }
    if (!cifar100Label.equals("fine") && !cifar100Label.equals("coarse")) {
      throw new IllegalArgumentException(
          "--cifar100-label must be fine or coarse but was '" + cifar100Label + "'");
    }
    if (crop != null && crop < 1) {
      throw new IllegalArgumentException("--crop must be >= 1 but was " + crop);
    }
    if (imageSize != null
        && (imageSize.size() != 2 || imageSize.get(0) < 1 || imageSize.get(1) < 1)) {
      throw new IllegalArgumentException(
          "--image-size must be two positive numbers H,W but was " + imageSize);
    }
  }

  /** The names of the formats {@code p} holds for: "a, b and c". */
  private static String formatsWhere(Predicate<DataFormat> p) {
    List<String> names = new ArrayList<>();
    for (DataFormat d : DataFormats.all()) {
      if (p.test(d)) {
        names.add(d.name());
      }
    }
    int last = names.size() - 1;
    return last < 1
        ? String.join("", names)
        : String.join(", ", names.subList(0, last)) + " and " + names.get(last);
  }
}
