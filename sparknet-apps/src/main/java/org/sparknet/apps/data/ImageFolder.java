package org.sparknet.apps.data;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.util.LongAccumulator;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.api.storage.StorageSettings;

/**
 * A folder of images, one subfolder per class, as Caffe's ImageNet examples lay them out: class
 * subfolders sorted by name give the label indices 0, 1, ...; each holds JPEG, PNG, BMP or GIF
 * files (other files are ignored). A folder with image files and no subfolders is read as
 * unlabelled images (for predict).
 *
 * <p>The folder may be on any Hadoop file system. The listing is made and checked on the driver;
 * the executors read each image's bytes from storage by its URI and decode them (javax.imageio),
 * resized to the net's input (bilinear), turned into Caffe's layout (BGR channel order, channels x
 * height x width, values 0-255 times a scale) and cropped/mirrored by an {@link ImageTransform}.
 * Undecodable files fail with the file named, or are skipped and counted.
 */
public final class ImageFolder {
  private static final List<String> EXTENSIONS = List.of(".jpg", ".jpeg", ".png", ".bmp", ".gif");

  private final StoragePath root;
  private final List<String> classes;

  /** "label\tURI" per image: plain strings cross the wire without Kryo registrations. */
  private final List<String> entries;

  private ImageFolder(StoragePath root, List<String> classes, List<String> entries) {
    this.root = root;
    this.classes = classes;
    this.entries = entries;
  }

  /** Lists and checks the local folder {@code root}. */
  public static ImageFolder open(Path root) {
    return open(StoragePath.of(root));
  }

  /** Lists and checks {@code root}, on any Hadoop file system. */
  public static ImageFolder open(StoragePath root) {
    if (!root.isDirectory()) {
      throw new IllegalArgumentException(
          "Image folder " + root + " does not exist or is not a directory");
    }
    List<StoragePath> subdirs = root.list().stream().filter(StoragePath::isDirectory).toList();
    List<String> entries = new ArrayList<>();
    List<String> classes = new ArrayList<>();
    if (subdirs.isEmpty()) {
      String none = "Image folder " + root + " has neither class subfolders nor images";
      for (StoragePath img : requireImages(root, none, "")) {
        entries.add("-1\t" + img);
      }
      return new ImageFolder(root, List.of(), entries);
    }
    for (StoragePath dir : subdirs) {
      List<StoragePath> imgs =
          requireImages(
              dir,
              "Class folder " + dir + " holds no images",
              "; every class needs at least one, or remove the folder");
      int label = classes.size();
      classes.add(dir.name());
      for (StoragePath img : imgs) {
        entries.add(label + "\t" + img);
      }
    }
    return new ImageFolder(root, List.copyOf(classes), entries);
  }

  /**
   * The image files of {@code dir}, sorted by name; none is an error: {@code problem}, the
   * extensions looked for, then {@code advice}.
   */
  private static List<StoragePath> requireImages(StoragePath dir, String problem, String advice) {
    List<StoragePath> imgs = images(dir);
    if (imgs.isEmpty()) {
      throw new IllegalArgumentException(
          problem + " (" + String.join(", ", EXTENSIONS) + ")" + advice);
    }
    return imgs;
  }

  /** The image files of {@code dir}, sorted by name. */
  private static List<StoragePath> images(StoragePath dir) {
    return dir.list().stream()
        .filter(StoragePath::isFile)
        .filter(
            p -> {
              String n = p.name().toLowerCase(Locale.ROOT);
              return EXTENSIONS.stream().anyMatch(n::endsWith);
            })
        .toList();
  }

  public StoragePath root() {
    return root;
  }

  /** Class names in label order; empty for a folder of unlabelled images. */
  public List<String> classes() {
    return classes;
  }

  public boolean labelled() {
    return !classes.isEmpty();
  }

  public int count() {
    return entries.size();
  }

  /**
   * The images as an RDD of {@code partitions} partitions, decoded on the executors into {@code 3 x
   * height x width} BGR floats times {@code scale}, then transformed. Unlabelled images get label
   * -1. With {@code skipped} non-null, undecodable images are left out and counted there; otherwise
   * the first one fails the job naming the file.
   */
  public JavaRDD<Example> toRdd(
      JavaSparkContext sc,
      int partitions,
      int height,
      int width,
      float scale,
      ImageTransform transform,
      LongAccumulator skipped) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1 but was " + partitions);
    }
    if (height < 1 || width < 1) {
      throw new IllegalArgumentException(
          "Image size must be positive but was " + height + "x" + width);
    }
    transform.check(height, width, "folder " + root);
    int n = entries.size();
    StorageSettings settings = root.settings();
    return sc.parallelize(entries, Math.min(partitions, n))
        .mapPartitionsWithIndex(
            (p, it) -> {
              // the global index of the partition's first image seeds its crops
              long first = (long) n * p / Math.min(partitions, n);
              List<Example> out = new ArrayList<>();
              long i = first;
              while (it.hasNext()) {
                String e = it.next();
                int tab = e.indexOf('\t');
                int label = Integer.parseInt(e.substring(0, tab));
                String path = e.substring(tab + 1);
                float[] chw =
                    decode(StoragePath.of(path, settings), height, width, scale, skipped != null);
                if (chw == null) {
                  skipped.add(1);
                } else {
                  out.add(new Example(transform.apply(chw, 3, height, width, i), label));
                }
                i++;
              }
              return out.iterator();
            },
            true);
  }

  /**
   * Decodes {@code path} into 3 x height x width BGR floats times {@code scale}; null for an
   * undecodable file when {@code lenient}, otherwise an error naming it.
   */
  public static float[] decode(String path, int height, int width, float scale, boolean lenient) {
    return decode(StoragePath.of(path), height, width, scale, lenient);
  }

  /**
   * {@link #decode(String, int, int, float, boolean)} of a file on any Hadoop file system: its
   * bytes are read here (on the executor), a file that cannot be read fails naming its URI.
   */
  static float[] decode(StoragePath file, int height, int width, float scale, boolean lenient) {
    return decode(file.readAllBytes(), file.toString(), height, width, scale, lenient);
  }

  /**
   * Decodes the encoded image {@code bytes} of the file {@code name} (named in errors) as Caffe's
   * {@code convert_imageset} does ({@code ReadImageToCVMat}): OpenCV's {@code imdecode} in colour
   * (grey and CMYK JPEGs become BGR, a PNG's alpha is dropped, 16-bit PNGs become 8-bit), then
   * {@code resize} with linear interpolation to {@code height x width}.
   */
  public static float[] decode(
      byte[] bytes, String name, int height, int width, float scale, boolean lenient) {
    if (height < 1 || width < 1) {
      throw new IllegalArgumentException(
          "Image size must be positive but was " + height + "x" + width);
    }
    OpenCvImage img =
        OpenCvImage.decodeOrElse(
            bytes,
            true,
            height,
            width,
            why -> {
              if (lenient) {
                return null;
              }
              throw new IllegalArgumentException(
                  "Cannot decode image "
                      + name
                      + ": "
                      + why
                      + "; fix or remove it, or pass --skip-bad-images to skip and count such"
                      + " files");
            });
    return img == null ? null : img.chw(scale);
  }
}
