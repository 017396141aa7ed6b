package org.sparknet.apps.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.util.LongAccumulator;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.FeatureColumns;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.CifarDataset;
import org.sparknet.apps.data.CifarFile;
import org.sparknet.apps.data.DataFormat;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.data.IdxInput;
import org.sparknet.apps.data.ImageFolder;
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
  private final IdxDataset idx;
  private final CifarDataset cifar;
  private final ImageFolder images;
  private final String parquet;
  private LongAccumulator skipped;

  private DataInput(
      DataFormat format,
      String option,
      IdxDataset idx,
      CifarDataset cifar,
      ImageFolder images,
      String parquet) {
    this.format = format;
    this.option = option;
    this.idx = idx;
    this.cifar = cifar;
    this.images = images;
    this.parquet = parquet;
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
    if (labelsUri != null && f != DataFormat.IDX) {
      throw new IllegalArgumentException(labelsOption + " applies only to --format idx");
    }
    switch (f) {
      case IDX -> {
        StoragePath imgs = IdxInput.file(uri, option);
        StoragePath labels = IdxInput.labels(imgs, labelsUri, labelsOption, labelsRequired);
        return new DataInput(
            f,
            option,
            labels == null ? IdxDataset.openUnlabelled(imgs) : IdxDataset.open(imgs, labels, 256),
            null,
            null,
            null);
      }
      case CIFAR, CIFAR100 -> {
        List<StoragePath> files = new ArrayList<>();
        for (String part : uri.split(",")) {
          files.add(IdxInput.file(part.strip(), option));
        }
        CifarFile.Variant v =
            f == DataFormat.CIFAR ? CifarFile.Variant.CIFAR10 : CifarFile.Variant.CIFAR100;
        boolean coarse = f == DataFormat.CIFAR100 && o.cifar100Label.equals("coarse");
        return new DataInput(f, option, null, CifarDataset.openAt(files, v, coarse), null, null);
      }
      case IMAGES -> {
        ImageFolder folder = ImageFolder.open(IdxInput.existing(uri, option));
        if (labelsRequired && !folder.labelled()) {
          throw new IllegalArgumentException(
              option
                  + " folder "
                  + uri
                  + " has no class subfolders; training and testing need one subfolder per"
                  + " class");
        }
        return new DataInput(f, option, null, null, folder, null);
      }
      default -> {
        StoragePath p = IdxInput.existing(uri, option);
        return new DataInput(f, option, null, null, null, p.toString());
      }
    }
  }

  DataFormat format() {
    return format;
  }

  /** Examples, or -1 when only Spark can tell (Parquet). */
  long count() {
    return idx != null
        ? idx.count()
        : cifar != null ? cifar.count() : images != null ? images.count() : -1;
  }

  /** Class names (images), else null. */
  List<String> classes() {
    return images == null ? null : images.classes();
  }

  /** The number of examples for messages (after skipped images, once they were read). */
  String describeCount() {
    long n = count();
    if (n >= 0 && skipped != null) {
      n -= skipped.value();
    }
    return n < 0 ? "Parquet" : String.format("%,d", n);
  }

  /**
   * The net definition and how to load the data for it: the shape of one example follows from the
   * format, the net's data layers and the options. Examples are loaded uncropped: the net crops and
   * mirrors them per batch, and a mean file is subtracted by the loader (see {@link
   * CaffeDataLayers}).
   */
  Loading setup(NetOptions n, DataOptions o) {
    o.check(format);
    if (format == DataFormat.IDX) {
      return idxLoading(n);
    }
    CaffeFiles files = n.files();
    CaffeDataLayers.Rewritten nt = rewriteDataLayers(files, n, o);
    MeanImage mean = nt.meanFile() == null ? null : MeanImage.read(nt.meanFile());
    int crop = nt.cropSize();
    int h;
    int w;
    List<Integer> shape;
    switch (format) {
      case CIFAR, CIFAR100 -> {
        h = CifarFile.SIDE;
        w = CifarFile.SIDE;
        shape = List.of(CifarFile.CHANNELS, h, w);
      }
      case IMAGES -> {
        if (o.imageSize != null) {
          h = o.imageSize.get(0);
          w = o.imageSize.get(1);
        } else if (mean != null) {
          h = mean.height();
          w = mean.width();
        } else if (crop > 0) {
          h = crop;
          w = crop;
        } else if (n.sampleShape != null && n.sampleShape.size() == 3) {
          h = n.sampleShape.get(1);
          w = n.sampleShape.get(2);
        } else if (nt.inputShape() != null) {
          h = nt.inputShape().get(1);
          w = nt.inputShape().get(2);
        } else {
          throw new IllegalArgumentException(
              "The net's data layers do not say the image size: pass --image-size H,W (or"
                  + " --crop N)");
        }
        shape = List.of(3, h, w);
      }
      default -> {
        if (mean != null) {
          throw new IllegalArgumentException(
              "The net's transform_param has a mean_file, which SparkNet does not subtract from"
                  + " Parquet data (its rows are flat vectors); remove it from the net"
                  + " (--mean-value works)");
        }
        h = 0;
        w = 0;
        shape = n.sampleShape != null ? n.sampleShape : nt.inputShape();
        if (shape == null) {
          throw new IllegalArgumentException(
              "The shape of one example of Parquet data is not known: pass --sample-shape C,H,W"
                  + " (for a flat vector of N values: 1,1,N)");
        }
      }
    }
    if (crop > 0 && h > 0) {
      new ImageTransform(crop, false, false, 0).check(h, w, option + " data");
    }
    if (mean != null) {
      mean.check(3, h, w, "the images of " + option);
    }
    if (format != DataFormat.PARQUET && n.sampleShape != null && !n.sampleShape.equals(shape)) {
      throw new IllegalArgumentException(
          "--sample-shape "
              + n.sampleShape
              + " does not match the "
              + shape
              + " examples that --format "
              + format.cliName()
              + " gives after resizing (uncropped: the net crops)");
    }
    NetDefinition def =
        n.definition(new CaffeFiles(nt.solverText(), nt.netText(), files.netSource()), shape);
    // Only the mean image is subtracted at load time; crops and flips are the net's, per batch,
    // so one transform serves both phases.
    return new Loading(def, n.scale(), h, w, new ImageTransform(0, false, false, 0, mean));
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

  /**
   * How to load: the definition, the pixel scale, the size images are resized to (0 when not
   * images) and the load-time transform (the mean image, if any).
   */
  /** IDX bytes as they are, times --scale; a net with Input layers needs --scale given. */
  private Loading idxLoading(NetOptions n) {
    NetDefinition def = n.definition(idx.sampleShape());
    n.checkRawPixels(def, option);
    return new Loading(def, n.scale(), 0, 0, ImageTransform.NONE);
  }

  record Loading(NetDefinition def, float scale, int height, int width, ImageTransform transform) {}

  /** The data as {@code partitions} partitions; {@code isTrain}: whether it is the training set. */
  JavaRDD<Example> toRdd(
      SparkSession spark, int partitions, Loading l, boolean isTrain, DataOptions o) {
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    ImageTransform t = l.transform();
    switch (format) {
      case IDX:
        return idx.toRdd(sc, partitions, l.scale());
      case CIFAR:
      case CIFAR100:
        return cifar.toRdd(sc, partitions, l.scale(), t);
      case IMAGES:
        if (o.skipBadImages) {
          skipped = sc.sc().longAccumulator("undecodable images in " + option);
        }
        return images.toRdd(sc, partitions, l.height(), l.width(), l.scale(), t, skipped);
      default:
        Dataset<Row> df = spark.read().parquet(parquet);
        String label = o.labelCol;
        if (!Arrays.asList(df.columns()).contains(label) && !labelledRequired(isTrain)) {
          label = "__sparknet_no_label";
          df = df.withColumn(label, functions.lit(-1));
        }
        JavaRDD<Example> rdd = FeatureColumns.examples(df, o.featuresCol, label);
        if (l.scale() != 1f) {
          float s = l.scale();
          rdd =
              rdd.map(
                  e -> {
                    float[] v = e.features().clone();
                    for (int i = 0; i < v.length; i++) {
                      v[i] *= s;
                    }
                    return new Example(v, e.label());
                  });
        }
        return rdd.getNumPartitions() == partitions ? rdd : rdd.repartition(partitions);
    }
  }

  private boolean labelledRequired(boolean isTrain) {
    return isTrain || !option.equals("--input");
  }

  /** Whether the examples carry labels (predict writes null labels otherwise). */
  boolean labelled(DataOptions o, SparkSession spark) {
    return switch (format) {
      case IDX -> idx.labelled();
      case IMAGES -> images.labelled();
      case PARQUET -> Arrays.asList(spark.read().parquet(parquet).columns()).contains(o.labelCol);
      default -> true;
    };
  }

  /** "; N undecodable images skipped" once the data was read with --skip-bad-images, else "". */
  String skippedReport() {
    if (skipped == null) {
      return "";
    }
    return String.format("; %,d undecodable image(s) in %s skipped", skipped.value(), option);
  }
}
