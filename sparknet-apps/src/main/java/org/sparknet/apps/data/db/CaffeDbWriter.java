package org.sparknet.apps.data.db;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.bytedeco.caffe.DB;
import org.bytedeco.caffe.LMDB;
import org.bytedeco.caffe.LevelDB;
import org.bytedeco.caffe.Transaction;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.BytePointer;
import org.sparknet.api.storage.StoragePath;

/**
 * Writes examples as a new Caffe LMDB or LevelDB with Caffe's own database classes, as {@code
 * convert_mnist_data} does: keys {@code %08d} in the order the examples are put, each value a raw
 * {@link DatumEncoder Datum}, a commit every {@value #COMMIT_RECORDS} records (or sooner when they
 * hold {@value #COMMIT_BYTES} bytes, as LMDB's transaction keeps them in memory until then).
 *
 * <p>Caffe aborts the process when it cannot create or open a database, so the target is checked
 * first: it must not exist and its parent must be a writable directory. Caffe writes only local
 * files: the database is built in a temporary directory (beside the target when that is local, so
 * the finished one is renamed into place; in the local temporary directory otherwise, then copied
 * to the target's file system) and removed when writing fails, so a failed run leaves nothing.
 *
 * <p>Not thread-safe: Caffe's databases have one writer.
 */
public final class CaffeDbWriter implements AutoCloseable {
  static final int COMMIT_RECORDS = 1000;
  static final int COMMIT_BYTES = 64 << 20;

  /** The database kinds Caffe writes ({@code backend: LMDB} or {@code LEVELDB}). */
  public enum Backend {
    LMDB,
    LEVELDB;

    /** The name used on the command line and in messages: "lmdb" or "leveldb". */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final StoragePath target;
  private final String what;
  private final Path local;
  private final Path scratch;
  private final DatumShape shape;
  private final DB db;
  private final Transaction txn;
  private long count;
  private int pending;
  private long pendingBytes;
  private boolean done;

  private CaffeDbWriter(
      Backend backend,
      StoragePath target,
      String what,
      Path local,
      Path scratch,
      DatumShape shape) {
    this.target = target;
    this.what = what;
    this.local = local;
    this.scratch = scratch;
    this.shape = shape;
    this.db = backend == Backend.LMDB ? new LMDB() : new LevelDB();
    db.Open(local.toString(), caffe.NEW);
    // NewTransaction returns a raw C++ object that the presets give Java no way to delete: the
    // one transaction of a database (its buffers emptied by each commit) outlives it.
    this.txn = db.NewTransaction();
  }

  /**
   * Creates an empty database of {@code backend} to be found at {@code target} once {@link #finish}
   * returns; {@code shape} is every example's channels x height x width.
   *
   * @param what names the setting in errors ("--output")
   * @throws IllegalArgumentException naming {@code what} and the URI: the target exists, or its
   *     parent is missing, not a directory or not writable
   */
  public static CaffeDbWriter create(
      Backend backend, StoragePath target, DatumShape shape, String what) {
    if (target.exists()) {
      throw new IllegalArgumentException(
          what + " " + target + " already exists; choose a new path (Caffe creates the database)");
    }
    StoragePath parent = target.parent();
    if (parent == null || !parent.isDirectory()) {
      throw new IllegalArgumentException(
          what + " " + target + ": its parent " + parent + " is not a directory; create it");
    }
    parent.checkWritable(true, what);
    Path scratch;
    Path local;
    try {
      if ("file".equals(target.toUri().getScheme())) {
        scratch = null;
        local =
            Paths.get(parent.toUri())
                .resolve("." + target.name() + ".writing-" + UUID.randomUUID());
      } else {
        scratch = Files.createTempDirectory("sparknet-" + backend.label());
        local = scratch.resolve(target.name());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot make a local temporary directory for " + target, e);
    }
    return new CaffeDbWriter(backend, target, what, local, scratch, shape);
  }

  /**
   * Adds one example under the next key.
   *
   * @param chw its values, channels x height x width
   * @param label its label, which must be an integer (a Datum's label is an int32)
   * @throws IllegalArgumentException naming the setting, the target and the example: another number
   *     of values than the shape's, or a label that is not an int32
   */
  public void put(float[] chw, float label) {
    checkOpen();
    String key = String.format(Locale.ROOT, "%08d", count);
    String where = what + " " + target + ": example " + count + " (key '" + key + "')";
    if (label != Math.rint(label) || Math.abs(label) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          where + " has label " + label + ", but a Caffe Datum's label is an integer");
    }
    byte[] value = DatumEncoder.encode(shape, chw, (int) label, where);
    try (BytePointer k = new BytePointer(key.getBytes(StandardCharsets.US_ASCII));
        BytePointer v = new BytePointer(value)) {
      txn.Put(k, v); // copied into C++ strings: the pointers may go
    }
    count++;
    pending++;
    pendingBytes += value.length;
    if (pending >= COMMIT_RECORDS || pendingBytes >= COMMIT_BYTES) {
      commit();
    }
  }

  /** How many examples were put. */
  public long count() {
    return count;
  }

  /**
   * Commits what is pending, closes the database and moves it to the target.
   *
   * @return the number of examples written
   */
  public long finish() {
    checkOpen();
    if (pending > 0) {
      commit();
    }
    closeDb();
    try {
      if (scratch == null) {
        Files.move(local, Paths.get(target.toUri()), StandardCopyOption.ATOMIC_MOVE);
      } else {
        FileSystem fs = target.fileSystem();
        fs.copyFromLocalFile(
            false, false, new org.apache.hadoop.fs.Path(local.toUri()), target.hadoopPath());
      }
    } catch (IOException e) {
      throw target.problem("write the database to", e);
    } finally {
      close();
    }
    return count;
  }

  /**
   * Abandons an unfinished database (nothing is left behind); after finish, only the temporaries.
   */
  @Override
  public void close() {
    if (!done) {
      closeDb();
    }
    delete(scratch != null ? scratch : local);
  }

  private void commit() {
    txn.Commit();
    pending = 0;
    pendingBytes = 0;
  }

  private void closeDb() {
    if (!done) {
      done = true;
      db.Close();
      db.close();
    }
  }

  private void checkOpen() {
    if (done) {
      throw new IllegalStateException("The database writer of " + target + " is closed");
    }
  }

  private static void delete(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot remove the temporary " + dir, e);
    }
  }
}
