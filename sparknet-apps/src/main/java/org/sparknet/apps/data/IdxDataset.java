package org.sparknet.apps.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.attribute.AttributeGroup;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

/**
 * A pair of IDX files (images and labels, MNIST layout) read into Spark as labelled examples.
 *
 * <p>The files are checked on the driver (magic numbers, matching counts, labels in range); the
 * records are then read on the executors, each partition reading its own range of records, so no
 * data is shipped from the driver inside tasks. The files may be on any Hadoop file system ({@code
 * hdfs:}, {@code s3a:}, {@code file:}): each task opens them on its executor and reads its own
 * range (see {@link IdxFile} for gzipped files).
 */
public final class IdxDataset implements ShardedDataset {
  private final IdxFile images;
  private final IdxFile labels;
  private final int numClasses;

  private IdxDataset(IdxFile images, IdxFile labels, int numClasses) {
    this.images = images;
    this.labels = labels;
    this.numClasses = numClasses;
  }

  /**
   * Opens and validates an images file and its labels file. Every label must lie in {@code [0,
   * numClasses)}.
   */
  public static IdxDataset open(Path imagesFile, Path labelsFile, int numClasses) {
    return open(StoragePath.of(imagesFile), StoragePath.of(labelsFile), numClasses);
  }

  /** {@link #open(Path, Path, int)} for files on any Hadoop file system. */
  public static IdxDataset open(StoragePath imagesFile, StoragePath labelsFile, int numClasses) {
    IdxFile images = IdxFile.open(imagesFile);
    IdxFile labels = IdxFile.open(labelsFile);
    if (labels.recordSize() != 1 || labels.recordDims().length != 0) {
      throw new IllegalArgumentException(
          "Labels file "
              + labelsFile
              + " has records of shape "
              + Arrays.toString(labels.recordDims())
              + "; expected one byte per record (an IDX file of rank 1)");
    }
    if (images.count() != labels.count()) {
      throw new IllegalArgumentException(
          "Images file "
              + imagesFile
              + " has "
              + images.count()
              + " records but labels file "
              + labelsFile
              + " has "
              + labels.count()
              + "; they must match one to one");
    }
    byte[] all = labels.readRecords(0, labels.count());
    for (int i = 0; i < all.length; i++) {
      int label = all[i] & 0xff;
      if (label >= numClasses) {
        throw new IllegalArgumentException(
            "Labels file "
                + labelsFile
                + " record "
                + i
                + " has label "
                + label
                + ", outside [0, "
                + numClasses
                + ")");
      }
    }
    return new IdxDataset(images, labels, numClasses);
  }

  /** An images file without labels (for prediction): every example gets label -1. */
  public static IdxDataset openUnlabelled(Path imagesFile) {
    return openUnlabelled(StoragePath.of(imagesFile));
  }

  /** {@link #openUnlabelled(Path)} for a file on any Hadoop file system. */
  public static IdxDataset openUnlabelled(StoragePath imagesFile) {
    return new IdxDataset(IdxFile.open(imagesFile), null, 0);
  }

  @Override
  public int count() {
    return images.count();
  }

  @Override
  public boolean labelled() {
    return labels != null;
  }

  public int numClasses() {
    return numClasses;
  }

  /** Shape of one example as Caffe sees it: [channels = 1, rows, columns]. */
  @Override
  public List<Integer> sampleShape() {
    List<Integer> shape = new ArrayList<>();
    shape.add(1);
    for (int d : images.recordDims()) {
      shape.add(d);
    }
    return shape;
  }

  /** Reads records {@code [from, to)} as examples, pixels multiplied by {@code scale}. */
  public List<Example> read(int from, int to, float scale) {
    return read(images.path(), labelsPath(), from, to, scale);
  }

  /**
   * The whole dataset as an RDD of {@code partitions} partitions of consecutive records, read on
   * the executors; pixels are multiplied by {@code scale} (1/256 gives Caffe's LeNet input).
   */
  @Override
  public JavaRDD<Example> toRdd(JavaSparkContext sc, int partitions, float scale) {
    return toRdd(sc, 0, count(), partitions, scale);
  }

  /**
   * Records {@code [from, to)} as an RDD of {@code partitions} partitions of consecutive records,
   * read on the executors (only the paths and bounds travel in the tasks).
   */
  public JavaRDD<Example> toRdd(
      JavaSparkContext sc, int from, int to, int partitions, float scale) {
    if (from < 0 || to > count() || from > to) {
      throw new IllegalArgumentException(
          "Records [" + from + ", " + to + ") are outside the " + count() + " in " + images.path());
    }
    // Locals only: the closure must not capture this object. The paths were qualified on the
    // driver: an executor's working directory is its own (on a standalone worker, work/APP/N).
    StoragePath imagesPath = images.path();
    StoragePath labelsPath = labelsPath();
    return RecordShards.read(
        sc, from, to - from, partitions, (a, b) -> read(imagesPath, labelsPath, a, b, scale));
  }

  /**
   * Records {@code [from, to)} as a DataFrame of {@code partitions} partitions, read on the
   * executors: {@code id} (record number, long), {@code image} (Spark ML dense Vector of the pixels
   * times {@code scale}, with ML attributes that give its size, as VectorAssembler and SparkNet's
   * stages read it) and {@code label} (double). For Spark ML pipelines and notebooks.
   */
  public Dataset<Row> toDataFrame(
      SparkSession spark, int from, int to, int partitions, float scale) {
    if (from < 0 || to > count() || from > to) {
      throw new IllegalArgumentException(
          "Records ["
              + from
              + ", "
              + to
              + ") are outside [0, "
              + count()
              + ") of "
              + images.path());
    }
    StoragePath imagesPath = images.path();
    StoragePath labelsPath = labelsPath();
    JavaRDD<Row> rows =
        RecordShards.read(
            JavaSparkContext.fromSparkContext(spark.sparkContext()),
            from,
            to - from,
            partitions,
            (a, b) -> {
              List<Example> examples = read(imagesPath, labelsPath, a, b, scale);
              List<Row> out = new ArrayList<>(examples.size());
              for (int i = 0; i < examples.size(); i++) {
                float[] f = examples.get(i).features();
                double[] d = new double[f.length];
                for (int j = 0; j < f.length; j++) {
                  d[j] = f[j];
                }
                out.add(
                    RowFactory.create(
                        (long) a + i, Vectors.dense(d), (double) examples.get(i).label()));
              }
              return out;
            });
    StructType schema =
        new StructType()
            .add("id", DataTypes.LongType, false)
            .add(new AttributeGroup("image", images.recordSize()).toStructField())
            .add("label", DataTypes.DoubleType, false);
    return spark.createDataFrame(rows, schema);
  }

  private StoragePath labelsPath() {
    return labels == null ? null : labels.path();
  }

  private static List<Example> read(
      StoragePath imagesPath, StoragePath labelsPath, int from, int to, float scale) {
    IdxFile images = IdxFile.open(imagesPath);
    byte[] pixels = images.readRecords(from, to);
    byte[] labelBytes = labelsPath == null ? null : IdxFile.open(labelsPath).readRecords(from, to);
    int size = images.recordSize();
    List<Example> out = new ArrayList<>(to - from);
    for (int r = 0; r < to - from; r++) {
      float[] features = new float[size];
      for (int j = 0; j < size; j++) {
        features[j] = (pixels[r * size + j] & 0xff) * scale;
      }
      out.add(new Example(features, labelBytes == null ? -1 : labelBytes[r] & 0xff));
    }
    return out;
  }
}
