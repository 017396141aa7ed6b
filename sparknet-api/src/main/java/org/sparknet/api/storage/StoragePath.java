package org.sparknet.api.storage;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serial;
import java.io.Serializable;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.UnsupportedFileSystemException;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.util.VersionInfo;

/**
 * A file or directory on any Hadoop file system: {@code hdfs://}, {@code s3a://}, {@code file:} or
 * a plain path (on the default file system, which is the local one unless {@code fs.defaultFS} says
 * otherwise). The path is qualified when it is made, on the driver: a relative path names the same
 * file on an executor, whose working directory is its own.
 *
 * <p>Serializable, with its Hadoop settings, so that a Spark task opens it on the executor. Every
 * failure is an {@link IllegalArgumentException} whose message names the URI and says what is wrong
 * (missing, no permission, unreadable): bad input, as the CLI reports it (exit 2).
 */
public final class StoragePath implements Serializable {
  @Serial private static final long serialVersionUID = 1L;

  private final String uri;
  private final StorageSettings settings;

  private StoragePath(String uri, StorageSettings settings) {
    this.uri = uri;
    this.settings = settings;
  }

  /** {@code uri} with the current settings ({@link StorageSettings#current}). */
  public static StoragePath of(String uri) {
    return of(uri, StorageSettings.current());
  }

  /** A local file, as a {@code file:} URI (whatever the default file system is). */
  public static StoragePath of(java.nio.file.Path local) {
    return of(local.toAbsolutePath().toUri().toString());
  }

  /**
   * {@code uri} on the file system that {@code settings} give, qualified.
   *
   * @throws IllegalArgumentException naming the URI when it is empty or its scheme has no file
   *     system
   */
  public static StoragePath of(String uri, StorageSettings settings) {
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("An empty path was given where a file or URI is needed");
    }
    Path p;
    try {
      p = new Path(uri);
      p = p.getFileSystem(settings.conf()).makeQualified(p);
    } catch (UnsupportedFileSystemException e) {
      throw new IllegalArgumentException(noFileSystem(uri, e.getMessage()), e);
    } catch (RuntimeException e) {
      // A scheme that core-default.xml maps to a class missing here (s3a: without hadoop-aws)
      if (e.getCause() instanceof ClassNotFoundException missing) {
        throw new IllegalArgumentException(noFileSystem(uri, missing.getMessage()), e);
      }
      if (e instanceof IllegalArgumentException) {
        throw new IllegalArgumentException("Cannot use " + uri + ": " + e.getMessage(), e);
      }
      throw e;
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot use " + uri + ": " + e.getMessage(), e);
    }
    return new StoragePath(p.toString(), settings);
  }

  /**
   * Why {@code uri} has no file system, and what to add. Spark's shaded Hadoop client jars hold
   * HDFS and the local file system, and name S3AFileSystem without holding it: S3A lives in {@code
   * hadoop-aws}, which must match the Hadoop version on the class path.
   */
  private static String noFileSystem(String uri, String reason) {
    String scheme = new Path(uri).toUri().getScheme();
    String why = "Cannot use " + uri + ": " + firstLine(String.valueOf(reason));
    if (scheme != null && scheme.toLowerCase(Locale.ROOT).startsWith("s3")) {
      String aws = "org.apache.hadoop:hadoop-aws:" + VersionInfo.getVersion();
      return why
          + ". S3 is read through Hadoop's s3a: file system, which is in "
          + aws
          + ", not in Spark's Hadoop client jars: add it with spark-submit --packages "
          + aws
          + " (with bin/sparknet: SPARKNET_CLASSPATH=hadoop-aws.jar:bundle.jar, that jar and the"
          + " AWS SDK bundle it names) and use an s3a:// URI";
    }
    return why + ". Add the jar that provides the '" + scheme + "' file system to the class path";
  }

  /** The Hadoop path (qualified). */
  public Path hadoopPath() {
    return new Path(uri);
  }

  public URI toUri() {
    return hadoopPath().toUri();
  }

  /** The file system this path lives on (Hadoop's cached instance: never close it). */
  public FileSystem fileSystem() {
    try {
      return hadoopPath().getFileSystem(settings.conf());
    } catch (IOException e) {
      throw new IllegalArgumentException("Cannot reach " + uri + ": " + e.getMessage(), e);
    }
  }

  public StorageSettings settings() {
    return settings;
  }

  /** The last element of the path (the file name). */
  public String name() {
    return hadoopPath().getName();
  }

  /** The directory holding this path; null at the root. */
  public StoragePath parent() {
    Path parent = hadoopPath().getParent();
    return parent == null ? null : new StoragePath(parent.toString(), settings);
  }

  /**
   * {@code other} resolved against this directory: a relative path lands inside it on the same file
   * system; an absolute path or a URI stands as it is.
   */
  public StoragePath resolve(String other) {
    Path o = new Path(other);
    if (o.toUri().getScheme() != null) {
      return of(other, settings);
    }
    Path here = hadoopPath();
    if (o.isAbsolute()) {
      return new StoragePath(new Path(here.toUri().resolve(o.toUri())).toString(), settings);
    }
    return new StoragePath(new Path(here, o).toString(), settings);
  }

  /** A file named {@code name} in the same directory. */
  public StoragePath sibling(String name) {
    return parent().resolve(name);
  }

  public boolean exists() {
    return status() != null;
  }

  public boolean isFile() {
    FileStatus st = status();
    return st != null && st.isFile();
  }

  public boolean isDirectory() {
    FileStatus st = status();
    return st != null && st.isDirectory();
  }

  /** Bytes in the file. */
  public long length() {
    FileStatus st = status();
    if (st == null) {
      throw new IllegalArgumentException(uri + " does not exist");
    }
    return st.getLen();
  }

  /** The status, or null when nothing is there. */
  private FileStatus status() {
    try {
      return fileSystem().getFileStatus(hadoopPath());
    } catch (FileNotFoundException e) {
      return null;
    } catch (IOException e) {
      throw problem("look at", e);
    }
  }

  /** The entries of this directory, sorted by name. */
  public List<StoragePath> list() {
    List<StoragePath> out = new ArrayList<>();
    try {
      for (FileStatus st : fileSystem().listStatus(hadoopPath())) {
        out.add(new StoragePath(st.getPath().toString(), settings));
      }
    } catch (IOException e) {
      throw problem("list", e);
    }
    out.sort((a, b) -> a.uri.compareTo(b.uri));
    return out;
  }

  /** The files (not directories) at any depth under this directory, sorted by URI. */
  public List<StoragePath> listFilesRecursively() {
    List<StoragePath> out = new ArrayList<>();
    try {
      RemoteIterator<LocatedFileStatus> it = fileSystem().listFiles(hadoopPath(), true);
      while (it.hasNext()) {
        out.add(new StoragePath(it.next().getPath().toString(), settings));
      }
    } catch (IOException e) {
      throw problem("list", e);
    }
    out.sort((a, b) -> a.uri.compareTo(b.uri));
    return out;
  }

  /** Opens the file for reading (seekable); the caller closes it. */
  public FSDataInputStream open() {
    try {
      return fileSystem().open(hadoopPath());
    } catch (IOException e) {
      throw problem("read", e);
    }
  }

  public byte[] readAllBytes() {
    try (InputStream in = open()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw problem("read", e);
    }
  }

  public String readText() {
    return new String(readAllBytes(), StandardCharsets.UTF_8);
  }

  /**
   * Writes {@code bytes} as this file: under a temporary name beside it, then renamed, so that a
   * failed write leaves nothing that reads as complete. Parent directories are made.
   *
   * @throws IllegalArgumentException when the file exists and {@code overwrite} is false, or it
   *     cannot be written (no permission, ...)
   */
  public void write(byte[] bytes, boolean overwrite) {
    FileSystem fs = fileSystem();
    Path target = hadoopPath();
    try {
      if (!overwrite && fs.exists(target)) {
        throw new IllegalArgumentException(
            uri + " already exists; choose another path or remove it");
      }
      writeByRename(fs, target, out -> out.write(bytes));
    } catch (IOException e) {
      throw problem("write", e);
    }
  }

  /** What is written into a file's stream; may fail with an {@link IOException}. */
  @FunctionalInterface
  public interface Contents {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Writes {@code target} on {@code fs} under a temporary name beside it ({@code _NAME.tmp}), then
   * puts it in place by a rename, so that no reader finds a partial file under the target's name.
   * An existing target is replaced; the temporary file is removed when the rename fails. Written
   * {@link #withoutChecksums}.
   */
  public static void writeByRename(FileSystem checked, Path target, Contents contents)
      throws IOException {
    FileSystem fs = withoutChecksums(checked);
    Path tmp = new Path(target.getParent(), "_" + target.getName() + ".tmp");
    try (OutputStream out = fs.create(tmp, true)) {
      contents.writeTo(out);
    }
    if (fs.exists(target)) {
      fs.delete(target, false);
    }
    if (!fs.rename(tmp, target)) {
      fs.delete(tmp, false);
      throw new IOException("Could not rename " + tmp + " to " + target);
    }
  }

  /**
   * {@code fs} for writing, without Hadoop's checksum files on the local file system: its
   * checksummed layer puts a hidden {@code .NAME.crc} beside every model, plot and checkpoint,
   * which is litter to a user (checkpoints carry a CRC of their own), and holds back a line of an
   * open file until a checksum chunk fills up. Other file systems are returned as they are.
   */
  public static FileSystem withoutChecksums(FileSystem fs) {
    return fs instanceof LocalFileSystem local ? local.getRaw() : fs;
  }

  /**
   * Checks, before a run starts, that it will be able to write here later: a probe file is written
   * and removed in the directory (this path, or its parent for a file), or, where that directory
   * does not exist yet, in its nearest existing ancestor, where the run will make it. Nothing is
   * left behind. {@code what} names the setting in the error ("--checkpoint", "The metrics file").
   *
   * @throws IllegalArgumentException naming {@code what}, the URI and the reason: no permission, a
   *     file where a directory must be (or the reverse), or the file system's own message
   */
  public void checkWritable(boolean directory, String what) {
    checkWritable(fileSystem(), hadoopPath(), directory, what);
  }

  /** {@link #checkWritable(boolean, String)} for {@code target} on {@code fs}. */
  public static void checkWritable(FileSystem fs, Path target, boolean directory, String what) {
    FileSystem raw = withoutChecksums(fs);
    Path dir = directory || target.getParent() == null ? target : target.getParent();
    try {
      if (raw.exists(target) && raw.getFileStatus(target).isDirectory() != directory) {
        throw new IllegalArgumentException(
            String.format(
                "%s %s is a %s, but a %s is written there; choose another path",
                what, target, directory ? "file" : "directory", directory ? "directory" : "file"));
      }
      while (!raw.exists(dir) && dir.getParent() != null) {
        dir = dir.getParent();
      }
      if (!raw.getFileStatus(dir).isDirectory()) {
        throw new IOException("it is a file, so nothing can be made under it");
      }
      Path probe = new Path(dir, "_sparknet-write-check-" + UUID.randomUUID());
      try (OutputStream out = raw.create(probe, false)) {
        out.write(0);
      }
      raw.delete(probe, false);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          what + ": " + problem(dir.toString(), "write in", e).getMessage(), e);
    }
  }

  /** Makes this directory and its parents. */
  public void mkdirs() {
    try {
      if (!fileSystem().mkdirs(hadoopPath())) {
        throw new IOException("mkdirs returned false");
      }
    } catch (IOException e) {
      throw problem("create the directory", e);
    }
  }

  /** Deletes this file or empty directory; nothing happens when it is not there. */
  public void delete() {
    try {
      fileSystem().delete(hadoopPath(), false);
    } catch (IOException e) {
      throw problem("delete", e);
    }
  }

  /**
   * {@code e}, met while trying to {@code action} this path, as bad input naming the URI: missing,
   * no permission, or the file system's own message.
   */
  public IllegalArgumentException problem(String action, IOException e) {
    return problem(uri, action, e);
  }

  private static IllegalArgumentException problem(String uri, String action, IOException e) {
    if (e instanceof FileNotFoundException) {
      return new IllegalArgumentException(uri + " does not exist", e);
    }
    if (e instanceof AccessControlException) {
      return new IllegalArgumentException(
          "No permission to " + action + " " + uri + ": " + firstLine(e.getMessage()), e);
    }
    return new IllegalArgumentException(
        "Cannot " + action + " " + uri + ": " + firstLine(String.valueOf(e.getMessage())), e);
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }

  /** The qualified URI, e.g. {@code hdfs://namenode:8020/data/train} or {@code file:/tmp/x}. */
  @Override
  public String toString() {
    return uri;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StoragePath other && other.uri.equals(uri);
  }

  @Override
  public int hashCode() {
    return uri.hashCode();
  }
}
