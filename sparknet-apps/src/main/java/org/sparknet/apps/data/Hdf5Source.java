package org.sparknet.apps.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

/**
 * The files of Caffe's {@code HDF5Data} layer read into Spark: {@code hdf5_data_param.source} is a
 * text file naming HDF5 files (whitespace-separated, one a line, read as Caffe reads them: see
 * {@link ListedPath} for relative names); each holds a dataset per top of the layer (the data top,
 * usually {@code data}, and the label top, usually {@code label}) with the same first dimension.
 * Examples are the rows of the data dataset (its trailing dimensions flattened in row-major order,
 * i.e. C x H x W for an N x C x H x W dataset), labelled by the label dataset's row.
 *
 * <p>The list and every file's header are read and checked on the driver (names, datasets, types,
 * row counts, one row shape for all files); the rows are read on the executors, each partition
 * reading its own range of rows over the files in order (a file's rows may be split between
 * partitions). Only the file names and row counts travel in the tasks.
 *
 * <p>Caffe's {@code shuffle: true} shuffles the file order and the rows within each file at every
 * pass. SparkNet reads in the list's order; {@link #shuffled(long)} permutes the file order once,
 * from a seed, and the trainer reshuffles each partition's rows at every epoch. Rows of different
 * files mix within a partition, not across partitions.
 */
public final class Hdf5Source implements ShardedDataset {
  /** Caffe's usual top names. */
  public static final String DATA = "data";

  public static final String LABEL = "label";

  private final StoragePath list;
  private final String dataTop;
  private final String labelTop;
  private final List<StoragePath> files;
  private final int[] rows;
  private final List<Integer> sampleShape;

  private Hdf5Source(
      StoragePath list,
      String dataTop,
      String labelTop,
      List<StoragePath> files,
      int[] rows,
      List<Integer> sampleShape) {
    this.list = list;
    this.dataTop = dataTop;
    this.labelTop = labelTop;
    this.files = files;
    this.rows = rows;
    this.sampleShape = sampleShape;
  }

  /** The local list {@code list} with tops {@code data} and {@code label}. */
  public static Hdf5Source open(Path list) {
    return open(StoragePath.of(list), DATA, LABEL);
  }

  /**
   * Reads the list {@code list} and checks every file it names: dataset {@code dataTop} and, unless
   * {@code labelTop} is null (unlabelled rows, label -1, for predict), dataset {@code labelTop}.
   *
   * @throws IllegalArgumentException naming the list (and line) or the file: an empty list, a
   *     missing file, a missing dataset (naming those the file has), rows that differ between tops,
   *     a type that is neither floating-point nor integer, a row shape unlike the first file's
   */
  public static Hdf5Source open(StoragePath list, String dataTop, String labelTop) {
    if (dataTop == null || dataTop.isEmpty()) {
      throw new IllegalArgumentException("HDF5 list " + list + ": no data top given");
    }
    if (!list.isFile()) {
      throw new IllegalArgumentException(
          "HDF5 list " + list + " (hdf5_data_param.source) does not exist or is not a file");
    }
    List<StoragePath> files = new ArrayList<>();
    String[] lines = list.readText().split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      for (String name : lines[i].trim().split("\\s+")) {
        if (!name.isEmpty()) {
          StoragePath f = ListedPath.resolve(list, i + 1, name);
          if (!f.isFile()) {
            throw new IllegalArgumentException(ListedPath.missing(list, i + 1, name, f));
          }
          files.add(f);
        }
      }
    }
    if (files.isEmpty()) {
      throw new IllegalArgumentException(
          "HDF5 list " + list + " names no files; list the .h5 files, one a line");
    }
    int[] rows = new int[files.size()];
    int[] shape = null;
    long total = 0;
    for (int i = 0; i < files.size(); i++) {
      Hdf5File h = Hdf5File.open(files.get(i), dataTop, labelTop);
      if (shape == null) {
        shape = h.sampleDims();
      } else if (!Arrays.equals(shape, h.sampleDims())) {
        throw new IllegalArgumentException(
            "HDF5 file "
                + files.get(i)
                + ": dataset '"
                + dataTop
                + "' has rows of shape "
                + Arrays.toString(h.sampleDims())
                + " but "
                + files.get(0)
                + " has "
                + Arrays.toString(shape)
                + "; every file of a list needs the same row shape");
      }
      rows[i] = h.rows();
      total += h.rows();
    }
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "HDF5 list " + list + " holds " + total + " rows, more than " + Integer.MAX_VALUE);
    }
    List<Integer> sample = Arrays.stream(shape).boxed().toList();
    return new Hdf5Source(list, dataTop, labelTop, List.copyOf(files), rows, sample);
  }

  public StoragePath list() {
    return list;
  }

  /** The files in the order they are read. */
  public List<StoragePath> files() {
    return files;
  }

  @Override
  public int count() {
    return Arrays.stream(rows).sum();
  }

  @Override
  public boolean labelled() {
    return labelTop != null;
  }

  /** Shape of one example: the data dataset's dimensions after the first (e.g. [C, H, W]). */
  @Override
  public List<Integer> sampleShape() {
    return sampleShape;
  }

  /**
   * This source with its files in an order drawn from {@code seed} (Caffe's file shuffle, done
   * once); the rows within each file keep their order.
   */
  public Hdf5Source shuffled(long seed) {
    int[] order = ShuffledOrder.of(files.size(), seed);
    List<StoragePath> f = new ArrayList<>();
    int[] r = new int[rows.length];
    for (int i = 0; i < order.length; i++) {
      f.add(files.get(order[i]));
      r[i] = rows[order[i]];
    }
    return new Hdf5Source(list, dataTop, labelTop, List.copyOf(f), r, sampleShape);
  }

  /** Rows {@code [from, to)} over all files in order, data values times {@code scale}. */
  public List<Example> read(int from, int to, float scale) {
    if (from < 0 || to > count() || from > to) {
      throw new IllegalArgumentException(
          "Rows [" + from + ", " + to + ") are outside the " + count() + " of " + list);
    }
    return read(files, rows.clone(), dataTop, labelTop, from, to, scale);
  }

  /**
   * All rows as an RDD of {@code partitions} partitions of consecutive rows, read on the executors;
   * data values are multiplied by {@code scale} (Caffe's HDF5Data applies none: 1).
   */
  @Override
  public JavaRDD<Example> toRdd(JavaSparkContext sc, int partitions, float scale) {
    // Locals only: the closure must not capture this object.
    List<StoragePath> paths = files;
    int[] counts = rows.clone();
    String data = dataTop;
    String label = labelTop;
    return RecordShards.readAll(
        sc, count(), partitions, (from, to) -> read(paths, counts, data, label, from, to, scale));
  }

  private static List<Example> read(
      List<StoragePath> files,
      int[] rows,
      String dataTop,
      String labelTop,
      int from,
      int to,
      float scale) {
    List<Example> out = new ArrayList<>(Math.max(0, to - from));
    int base = 0; // global index of the current file's first row
    for (int i = 0; i < files.size() && base < to; i++) {
      int lo = Math.max(from, base);
      int hi = Math.min(to, base + rows[i]);
      if (lo < hi) {
        Hdf5File.read(files.get(i), dataTop, labelTop, lo - base, hi - base, scale, out);
      }
      base += rows[i];
    }
    return out;
  }
}
