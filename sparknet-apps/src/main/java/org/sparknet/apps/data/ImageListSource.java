package org.sparknet.apps.data;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;

/**
 * The images of Caffe's {@code ImageData} layer read into Spark: a list file of {@code path label}
 * lines ({@link ImageList}) and {@code image_data_param}'s {@code root_folder}, {@code new_height},
 * {@code new_width} and {@code is_color}. Each image is read from {@code root_folder + path}
 * (joined as strings, as Caffe joins them; relative names as {@link ListedPath} resolves them) and
 * decoded as Caffe's {@code ReadImageToCVMat} decodes it ({@link OpenCvImage}): colour (3 channels,
 * B, G, R) or grey (1 channel), resized (linear) when both new sizes are positive, laid out
 * channels x height x width, values 0-255 times a scale.
 *
 * <p>On the driver the list is parsed, every image's existence is checked (one listing per folder
 * that holds listed images, not one look-up per image) and the first image is decoded to fix the
 * example shape. Without a resize every image must have that size (Caffe's batches need one shape):
 * an image of another size fails on the executor that reads it, naming it. The executors read the
 * list themselves and each partition decodes its own range of lines; only the list's name and a few
 * numbers travel in the tasks.
 *
 * <p>Caffe's {@code shuffle: true} shuffles the lines at set-up and again after every pass.
 * SparkNet reads in the list's order; {@link #shuffled(long)} permutes the lines once, from a seed
 * (lists are often sorted by class, and partitions are ranges of lines), and the trainer reshuffles
 * each partition's examples at every epoch.
 */
public final class ImageListSource {
  private final Spec spec;

  /** What an executor needs to read its lines. */
  private record Spec(
      StoragePath list,
      String workingDirectory,
      String rootFolder,
      boolean color,
      int newHeight,
      int newWidth,
      int count,
      int channels,
      int height,
      int width,
      String firstImage,
      boolean shuffle,
      long seed)
      implements Serializable {
    @Serial private static final long serialVersionUID = 1L;
  }

  private ImageListSource(Spec spec) {
    this.spec = spec;
  }

  /** {@link #open(StoragePath, String, int, int, boolean)} of a local list. */
  public static ImageListSource open(
      Path list, String rootFolder, int newHeight, int newWidth, boolean isColor) {
    return open(StoragePath.of(list), rootFolder, newHeight, newWidth, isColor);
  }

  /**
   * Parses {@code list}, checks that every image exists and decodes the first.
   *
   * @param rootFolder prefixed to every path as written (Caffe's {@code root_folder}; "" for none)
   * @param newHeight with {@code newWidth}, the size images are resized to; both 0 for none
   * @param isColor 3 channels (BGR) or 1 (grey)
   * @throws IllegalArgumentException naming the list and line: a line without a label, a missing
   *     image, an undecodable first image; or new sizes that are not both 0 or both positive
   */
  public static ImageListSource open(
      StoragePath list, String rootFolder, int newHeight, int newWidth, boolean isColor) {
    if (!((newHeight == 0 && newWidth == 0) || (newHeight > 0 && newWidth > 0))) {
      throw new IllegalArgumentException(
          "new_height "
              + newHeight
              + " and new_width "
              + newWidth
              + " for image list "
              + list
              + ": set both (> 0) to resize, or neither (0) to keep the images' size");
    }
    if (!list.isFile()) {
      throw new IllegalArgumentException(
          "Image list " + list + " (image_data_param.source) does not exist or is not a file");
    }
    String root = rootFolder == null ? "" : rootFolder;
    String wd = ListedPath.workingDirectory(list);
    List<ImageList.Entry> entries = ImageList.parse(list, list.readText());
    checkExist(list, entries, root, wd);
    ImageList.Entry first = entries.get(0);
    StoragePath firstFile = ListedPath.resolve(list, first.line(), root + first.path(), wd);
    OpenCvImage img = decode(list, first, firstFile, isColor, newHeight, newWidth);
    return new ImageListSource(
        new Spec(
            list,
            wd,
            root,
            isColor,
            newHeight,
            newWidth,
            entries.size(),
            img.channels(),
            img.height(),
            img.width(),
            firstFile.toString(),
            false,
            0));
  }

  /**
   * Throws, naming the list and line, at the first image that does not exist: each folder that
   * holds listed images is listed once.
   */
  private static void checkExist(
      StoragePath list, List<ImageList.Entry> entries, String root, String wd) {
    Map<StoragePath, Set<String>> files = new HashMap<>();
    for (ImageList.Entry e : entries) {
      String written = root + e.path();
      StoragePath f = ListedPath.resolve(list, e.line(), written, wd);
      if (!files.computeIfAbsent(f.parent(), ImageListSource::fileNames).contains(f.name())) {
        String msg = ListedPath.missing(list, e.line(), written, f);
        if (!root.isEmpty() && !root.endsWith("/")) {
          msg += "; root_folder '" + root + "' is joined to the paths as a string: end it with '/'";
        }
        throw new IllegalArgumentException(msg);
      }
    }
  }

  /** The names of the files in {@code dir}; none when it does not exist. */
  private static Set<String> fileNames(StoragePath dir) {
    Set<String> names = new HashSet<>();
    try {
      for (FileStatus st : dir.fileSystem().listStatus(dir.hadoopPath())) {
        if (st.isFile()) {
          names.add(st.getPath().getName());
        }
      }
    } catch (FileNotFoundException e) {
      return names;
    } catch (IOException e) {
      throw dir.problem("list", e);
    }
    return names;
  }

  public StoragePath list() {
    return spec.list();
  }

  public int count() {
    return spec.count();
  }

  /** Every line of an image list carries a label. */
  public boolean labelled() {
    return true;
  }

  /** Shape of one example: [channels (3 or 1), height, width]. */
  public List<Integer> sampleShape() {
    return List.of(spec.channels(), spec.height(), spec.width());
  }

  /** This source with its lines in an order drawn from {@code seed} (Caffe's shuffle, once). */
  public ImageListSource shuffled(long seed) {
    Spec s = spec;
    return new ImageListSource(
        new Spec(
            s.list(),
            s.workingDirectory(),
            s.rootFolder(),
            s.color(),
            s.newHeight(),
            s.newWidth(),
            s.count(),
            s.channels(),
            s.height(),
            s.width(),
            s.firstImage(),
            true,
            seed));
  }

  /**
   * Examples {@code [from, to)} of the (possibly shuffled) order, decoded here, values times {@code
   * scale}, then transformed (crops and flips drawn from each example's index).
   */
  public List<Example> read(int from, int to, float scale, ImageTransform transform) {
    if (from < 0 || to > count() || from > to) {
      throw new IllegalArgumentException(
          "Images [" + from + ", " + to + ") are outside the " + count() + " of " + list());
    }
    transform.check(spec.height(), spec.width(), "list " + list());
    return read(spec, from, to, scale, transform);
  }

  /** {@link #toRdd(JavaSparkContext, int, float, ImageTransform)} without a transform. */
  public JavaRDD<Example> toRdd(JavaSparkContext sc, int partitions, float scale) {
    return toRdd(sc, partitions, scale, ImageTransform.NONE);
  }

  /**
   * All images as an RDD of {@code partitions} partitions of consecutive lines (of the possibly
   * shuffled order), decoded on the executors, values times {@code scale}, then transformed.
   */
  public JavaRDD<Example> toRdd(
      JavaSparkContext sc, int partitions, float scale, ImageTransform transform) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1 but was " + partitions);
    }
    transform.check(spec.height(), spec.width(), "list " + list());
    Spec s = spec; // locals only: the closure must not capture this object
    return RecordShards.readAll(
        sc, s.count(), partitions, (from, to) -> read(s, from, to, scale, transform));
  }

  private static List<Example> read(
      Spec s, int from, int to, float scale, ImageTransform transform) {
    List<ImageList.Entry> entries = ImageList.parse(s.list(), s.list().readText());
    if (entries.size() != s.count()) {
      throw new IllegalArgumentException(
          "Image list "
              + s.list()
              + " has "
              + entries.size()
              + " lines now, not the "
              + s.count()
              + " it had when it was opened; it changed since");
    }
    int[] order = s.shuffle() ? ShuffledOrder.of(s.count(), s.seed()) : null;
    List<Example> out = new ArrayList<>(Math.max(0, to - from));
    for (int k = from; k < to; k++) {
      ImageList.Entry e = entries.get(order == null ? k : order[k]);
      StoragePath f =
          ListedPath.resolve(s.list(), e.line(), s.rootFolder() + e.path(), s.workingDirectory());
      OpenCvImage img = decode(s.list(), e, f, s.color(), s.newHeight(), s.newWidth());
      if (img.height() != s.height() || img.width() != s.width()) {
        throw new IllegalArgumentException(
            "Image "
                + f
                + " (list "
                + s.list()
                + " line "
                + e.line()
                + ") is "
                + img.width()
                + "x"
                + img.height()
                + " but the list's first image "
                + s.firstImage()
                + " is "
                + s.width()
                + "x"
                + s.height()
                + "; without new_height and new_width all images"
                + " need one size: set both, or resize the images");
      }
      float[] chw = img.chw(scale);
      out.add(new Example(transform.apply(chw, s.channels(), s.height(), s.width(), k), e.label()));
    }
    return out;
  }

  /** Reads and decodes {@code file}, listed at {@code e}; an undecodable image is an error. */
  private static OpenCvImage decode(
      StoragePath list, ImageList.Entry e, StoragePath file, boolean color, int h, int w) {
    return OpenCvImage.decodeOrElse(
        file.readAllBytes(),
        color,
        h,
        w,
        why -> {
          throw new IllegalArgumentException(
              "Cannot decode image "
                  + file
                  + " (list "
                  + list
                  + " line "
                  + e.line()
                  + "): "
                  + why
                  + "; fix the image or remove its line");
        });
  }
}
