package org.sparknet.apps.data;

import java.util.function.Supplier;
import org.sparknet.api.storage.StoragePath;

/**
 * Where the CLI's IDX (and CIFAR) data lives: a file given as a Hadoop URI ({@code hdfs:}, {@code
 * s3a:}, {@code file:}) or a path, and for IDX its labels file, found by the MNIST naming
 * convention ({@code train-images-idx3-ubyte} to {@code train-labels-idx1-ubyte}, compressed or
 * not) unless given.
 */
public final class IdxInput {
  private IdxInput() {}

  /**
   * The file {@code uri} names; it must exist and be a file.
   *
   * @throws IllegalArgumentException naming {@code option} and the URI when it is missing, a
   *     directory, or cannot be looked at (no permission)
   */
  public static StoragePath file(String uri, String option) {
    StoragePath p = naming(option, () -> StoragePath.of(uri));
    if (naming(option, p::isFile)) {
      return p;
    }
    throw new IllegalArgumentException(
        option + " file " + p + (p.exists() ? " is a directory" : " does not exist"));
  }

  /**
   * The file or directory {@code uri} names (an image folder, a Parquet directory); it must exist.
   *
   * @throws IllegalArgumentException naming {@code option} and the URI when it is missing or cannot
   *     be looked at
   */
  public static StoragePath existing(String uri, String option) {
    StoragePath p = naming(option, () -> StoragePath.of(uri));
    if (naming(option, p::exists)) {
      return p;
    }
    throw new IllegalArgumentException(option + " " + p + " does not exist");
  }

  /** The answer of {@code call}; its bad-input failure (a bad URI, no permission) names option. */
  private static <T> T naming(String option, Supplier<T> call) {
    try {
      return call.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }

  /**
   * The labels file for {@code images}: {@code explicit} if given, else the name with "images"
   * replaced by "labels" and "idx3" by "idx1", in the same directory. Returns null when that file
   * does not exist and {@code required} is false.
   */
  public static StoragePath labels(
      StoragePath images, String explicit, String option, boolean required) {
    if (explicit != null) {
      return file(explicit, option);
    }
    String name = images.name();
    String guess = name.replace("images", "labels").replace("idx3", "idx1");
    StoragePath p = images.sibling(guess);
    if (!guess.equals(name) && p.isFile()) {
      return p;
    }
    if (required) {
      throw new IllegalArgumentException(
          "No labels file for "
              + images
              + ": "
              + (guess.equals(name) ? "its name has no 'images' or 'idx3' to replace" : p)
              + (guess.equals(name) ? "" : " does not exist")
              + "; pass "
              + option
              + " FILE");
    }
    return null;
  }
}
