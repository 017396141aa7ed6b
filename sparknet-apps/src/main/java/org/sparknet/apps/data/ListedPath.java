package org.sparknet.apps.data;

import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.sparknet.api.storage.StoragePath;

/**
 * A file named in one of Caffe's list files ({@code HDF5Data}'s source, {@code ImageData}'s
 * source). Caffe opens the name as written ({@code H5Fopen}, {@code cv::imread}): a relative name
 * is relative to the process's working directory, not to the list's folder. SparkNet does the same
 * on the list's file system: a URI stands as written, an absolute path is on the list's file
 * system, and a relative path is qualified against that file system's working directory (the
 * driver's working directory for a local list, the user's home directory on HDFS), on the driver.
 */
final class ListedPath {
  private ListedPath() {}

  /**
   * {@code written}, from line {@code line} of {@code list}, as a qualified path; a relative name
   * is resolved against {@link #workingDirectory(StoragePath)}.
   *
   * @throws IllegalArgumentException naming the list and line when the name is not a usable path
   */
  static StoragePath resolve(StoragePath list, int line, String written) {
    return resolve(list, line, written, workingDirectory(list));
  }

  /**
   * {@link #resolve(StoragePath, int, String)} with relative names resolved against {@code
   * workingDirectory}: an executor resolves them against the driver's, whose URI it was given (its
   * own working directory is another).
   */
  static StoragePath resolve(StoragePath list, int line, String written, String workingDirectory) {
    try {
      Path p = new Path(written);
      if (p.toUri().getScheme() != null) {
        return StoragePath.of(written, list.settings());
      }
      Path q = p.isAbsolute() ? p : new Path(new Path(workingDirectory), p);
      return StoragePath.of(list.fileSystem().makeQualified(q).toString(), list.settings());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "List " + list + " line " + line + " names '" + written + "': " + e.getMessage(), e);
    }
  }

  /** The working directory of the list's file system, here (on the driver), as a URI. */
  static String workingDirectory(StoragePath list) {
    FileSystem fs = list.fileSystem();
    return fs.makeQualified(fs.getWorkingDirectory()).toString();
  }

  /**
   * What to say about {@code written} (line {@code line} of {@code list}), resolved to {@code
   * file}, which does not exist; names the file beside the list when that one exists, since
   * relative names are not read from there.
   */
  static String missing(StoragePath list, int line, String written, StoragePath file) {
    String msg =
        "List "
            + list
            + " line "
            + line
            + " names "
            + written
            + ", but "
            + file
            + " does not exist";
    if (!new Path(written).isAbsolute() && new Path(written).toUri().getScheme() == null) {
      StoragePath beside = list.parent().resolve(written);
      if (exists(beside)) {
        return msg
            + "; "
            + beside
            + " exists beside the list, but relative names are read from the working directory"
            + " (as Caffe reads them): write absolute paths or run from the folder they are"
            + " relative to";
      }
      return msg + " (relative names are read from the working directory, as Caffe reads them)";
    }
    return msg;
  }

  private static boolean exists(StoragePath p) {
    try {
      return p.exists();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
