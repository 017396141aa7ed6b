package org.sparknet.apps.cli;

import org.sparknet.api.storage.StoragePath;

/**
 * The checks of the places a command writes (see {@link SparkNetCommand}), each named by its
 * option: a local path, a {@code file:} URI or any Hadoop URI ({@code hdfs://}). A place passes
 * when what is there is of the kind written (a file, or a directory), the nearest existing
 * directory at or above it takes a probe file (written and removed, so nothing is left), and, for a
 * new place, nothing is there yet. Every failure is an {@link IllegalArgumentException} naming the
 * option, the URI and the reason (exit 2).
 */
final class Outputs {
  /** A file written, or replaced, at {@code uri}; null when the option was not given. */
  StoragePath file(String option, String uri) {
    return uri == null ? null : file(option, path(option, uri));
  }

  /** {@link #file(String, String)} for a path the command derived; {@code what} names it. */
  StoragePath file(String what, StoragePath p) {
    p.checkWritable(false, what);
    return p;
  }

  /**
   * A file made at {@code uri}, where nothing may be yet. Checked for writing first: where its
   * directory cannot be looked into (HDFS without permission), that says so, naming the option.
   */
  StoragePath newFile(String option, String uri) {
    StoragePath p = file(option, path(option, uri));
    if (p.exists()) {
      throw new IllegalArgumentException(option + " " + p + " already exists; choose a new file");
    }
    return p;
  }

  /** A directory written in (made when missing); null when the option was not given. */
  StoragePath directory(String option, String uri) {
    if (uri == null) {
      return null;
    }
    StoragePath p = path(option, uri);
    p.checkWritable(true, option);
    return p;
  }

  /**
   * A directory made at {@code uri} by whoever writes it (Spark, a database writer), where nothing
   * may be yet, or, when {@code emptyAllowed}, only an empty directory.
   */
  StoragePath newDirectory(String option, String uri, boolean emptyAllowed) {
    StoragePath p = path(option, uri);
    p.checkWritable(true, option); // first, as in newFile
    if (p.exists() && !(emptyAllowed && p.isDirectory() && p.list().isEmpty())) {
      throw new IllegalArgumentException(
          option + " " + p + " already exists; choose a new directory");
    }
    return p;
  }

  /** {@code uri} qualified; the option is named when it is no usable URI. */
  static StoragePath path(String option, String uri) {
    try {
      return StoragePath.of(uri);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
  }
}
