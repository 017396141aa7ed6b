package org.sparknet.apps.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Caffe databases for tests, written by Debian's own tools (python3-lmdb, python3-plyvel) from the
 * scripts under src/test/resources/lmdb, never by SparkNet.
 */
public final class CaffeData {
  private CaffeData() {}

  /**
   * IDX images and labels as a database of {@code %08d}-keyed Datums at {@code out}, as Caffe's
   * convert_mnist_data writes it; {@code backend} lmdb or leveldb; {@code variant} "" (raw bytes),
   * "png" (encoded), "odd-size" or "undecodable" (the last record).
   */
  public static void fromIdx(String backend, Path images, Path labels, Path out, String variant)
      throws IOException, InterruptedException {
    Path dir = scripts();
    PythonScript.run(
        "/lmdb/idx_to_db.py",
        dir,
        backend,
        images.toString(),
        labels.toString(),
        out.toString(),
        variant);
  }

  /** An LMDB with no records. */
  public static void emptyLmdb(Path out) throws IOException, InterruptedException {
    PythonScript.run("/lmdb/write_lmdbs.py", scripts(), "empty", out.toString());
  }

  /** A directory holding both scripts (idx_to_db.py imports write_lmdbs.py). */
  private static Path scripts() throws IOException {
    Path dir = Files.createTempDirectory("sparknet-caffe-data");
    CliFixtures.copyResource("/lmdb/write_lmdbs.py", dir.resolve("write_lmdbs.py"));
    return dir;
  }
}
