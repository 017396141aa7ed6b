package org.sparknet.apps.data;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the CLI's IDX data lives: an images file given as a path or a {@code file:} URI, and its
 * labels file, found by the MNIST naming convention ({@code train-images-idx3-ubyte} to {@code
 * train-labels-idx1-ubyte}, compressed or not) unless given.
 */
public final class IdxInput {
  private IdxInput() {}

  /** The local file {@code uri} names (a path or a file: URI); it must exist. */
  public static Path file(String uri, String option) {
    Path p;
    if (uri.startsWith("file:")) {
      p = Path.of(URI.create(uri));
    } else if (uri.matches("^[A-Za-z][A-Za-z0-9+.-]+://.*")) {
      throw new IllegalArgumentException(
          option
              + " "
              + uri
              + ": only local paths and file: URIs are supported for local files (on a cluster,"
              + " put the files on a volume every worker mounts at the same path)");
    } else {
      p = Path.of(uri);
    }
    if (!Files.isRegularFile(p)) {
      throw new IllegalArgumentException(option + " file " + p + " does not exist");
    }
    return p;
  }

  /**
   * The labels file for {@code images}: {@code explicit} if given, else the name with "images"
   * replaced by "labels" and "idx3" by "idx1". Returns null when that file does not exist and
   * {@code required} is false.
   */
  public static Path labels(Path images, String explicit, String option, boolean required) {
    if (explicit != null) {
      return file(explicit, option);
    }
    String name = images.getFileName().toString();
    String guess = name.replace("images", "labels").replace("idx3", "idx1");
    Path p = images.resolveSibling(guess);
    if (!guess.equals(name) && Files.isRegularFile(p)) {
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
