package org.sparknet.apps.data;

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
    StoragePath p;
    try {
      p = StoragePath.of(uri);
      if (p.isFile()) {
        return p;
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException(
        option + " file " + p + (p.exists() ? " is a directory" : " does not exist"));
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
