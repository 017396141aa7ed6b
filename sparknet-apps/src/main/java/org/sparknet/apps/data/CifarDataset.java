package org.sparknet.apps.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

/**
 * One or more CIFAR binary batch files read into Spark as labelled 3x32x32 examples (channels in
 * the file's R, G, B order, as Caffe's {@code convert_cifar_data} stores them; pixels 0-255 times a
 * scale). The files are checked on the driver; the records are read on the executors, each
 * partition reading its own range of records (across file boundaries), so no data travels inside
 * tasks. The files may be on any Hadoop file system: each task seeks to its first record, so it
 * reads only its own bytes. (Spark's {@code binaryRecords} would read the same fixed-length
 * records, but in partitions of its own choosing; these ranges keep the partitions and each
 * record's crop seed the same on every file system.)
 */
public final class CifarDataset {
  private final List<CifarFile> files;
  private final boolean coarse;

  private CifarDataset(List<CifarFile> files, boolean coarse) {
    this.files = files;
    this.coarse = coarse;
  }

  /**
   * Opens and validates {@code paths}. For CIFAR-100, {@code coarse} picks the coarse (20-class)
   * label instead of the fine (100-class) one.
   */
  public static CifarDataset open(List<Path> paths, CifarFile.Variant variant, boolean coarse) {
    return openAt(paths.stream().map(StoragePath::of).toList(), variant, coarse);
  }

  /** {@link #open} for files on any Hadoop file system. */
  public static CifarDataset openAt(
      List<StoragePath> paths, CifarFile.Variant variant, boolean coarse) {
    if (paths.isEmpty()) {
      throw new IllegalArgumentException("No CIFAR files given");
    }
    if (coarse && variant != CifarFile.Variant.CIFAR100) {
      throw new IllegalArgumentException("Coarse labels exist only in CIFAR-100 files");
    }
    List<CifarFile> files = new ArrayList<>();
    for (StoragePath p : paths) {
      files.add(CifarFile.open(p, variant));
    }
    return new CifarDataset(files, coarse);
  }

  public int count() {
    int n = 0;
    for (CifarFile f : files) {
      n += f.count();
    }
    return n;
  }

  public int numClasses() {
    CifarFile.Variant v = files.get(0).variant();
    return v == CifarFile.Variant.CIFAR10 ? 10 : coarse ? 20 : 100;
  }

  /** Shape of one example: [3, 32, 32]. */
  public static List<Integer> sampleShape() {
    return List.of(CifarFile.CHANNELS, CifarFile.SIDE, CifarFile.SIDE);
  }

  /** Reads records {@code [from, to)} (over all files, in order) as examples. */
  public List<Example> read(int from, int to, float scale, ImageTransform transform) {
    return read(paths(), files.get(0).variant(), coarse, from, to, scale, transform);
  }

  /**
   * The whole dataset as an RDD of {@code partitions} partitions of consecutive records, read on
   * the executors; pixels are multiplied by {@code scale}, then cropped/mirrored by {@code
   * transform}.
   */
  public JavaRDD<Example> toRdd(
      JavaSparkContext sc, int partitions, float scale, ImageTransform transform) {
    // Locals only: the closure must not capture this object.
    List<StoragePath> paths = paths();
    CifarFile.Variant variant = files.get(0).variant();
    boolean useCoarse = coarse;
    return RecordShards.readAll(
        sc,
        count(),
        partitions,
        (from, to) -> read(paths, variant, useCoarse, from, to, scale, transform));
  }

  private List<StoragePath> paths() {
    return files.stream().map(CifarFile::path).collect(Collectors.toList());
  }

  private static List<Example> read(
      List<StoragePath> paths,
      CifarFile.Variant variant,
      boolean coarse,
      int from,
      int to,
      float scale,
      ImageTransform transform) {
    List<Example> out = new ArrayList<>(Math.max(0, to - from));
    int rs = variant.recordSize();
    int labelOffset = variant == CifarFile.Variant.CIFAR100 && !coarse ? 1 : 0;
    int base = 0; // global index of the current file's first record
    for (StoragePath p : paths) {
      if (base >= to) {
        break;
      }
      // The size is checked again on the executor: a file changed or missing there is named.
      CifarFile f = CifarFile.openSized(p, variant);
      int lo = Math.max(from, base);
      int hi = Math.min(to, base + f.count());
      if (lo < hi) {
        byte[] b = f.readRecords(lo - base, hi - base);
        for (int r = 0; r < hi - lo; r++) {
          int off = r * rs;
          float[] px = new float[CifarFile.PIXELS];
          for (int j = 0; j < CifarFile.PIXELS; j++) {
            px[j] = (b[off + variant.labelBytes + j] & 0xff) * scale;
          }
          float[] features =
              transform.apply(px, CifarFile.CHANNELS, CifarFile.SIDE, CifarFile.SIDE, lo + r);
          out.add(new Example(features, b[off + labelOffset] & 0xff));
        }
      }
      base += f.count();
    }
    return out;
  }
}
