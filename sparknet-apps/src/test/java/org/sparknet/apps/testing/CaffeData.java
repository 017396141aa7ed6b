package org.sparknet.apps.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Caffe databases for tests, written by Debian's own tools (python3-lmdb, python3-plyvel, run as
 * /usr/bin/python3) from the scripts under src/test/resources/lmdb, never by SparkNet.
 */
public final class CaffeData {
  private static final String PYTHON = "/usr/bin/python3";

  private CaffeData() {}

  /**
   * IDX images and labels as a database of {@code %08d}-keyed Datums at {@code out}, as Caffe's
   * convert_mnist_data writes it; {@code backend} lmdb or leveldb; {@code variant} "" (raw bytes),
   * "png" (encoded), "odd-size" or "undecodable" (the last record).
   */
  public static void fromIdx(String backend, Path images, Path labels, Path out, String variant)
      throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(
            List.of(backend, images.toString(), labels.toString(), out.toString(), variant));
    python("idx_to_db.py", args);
  }

  /** An LMDB with no records. */
  public static void emptyLmdb(Path out) throws IOException, InterruptedException {
    python("write_lmdbs.py", List.of("empty", out.toString()));
  }

  /** Runs one of the scripts (copied beside each other, as they import one another). */
  public static String python(String script, List<String> args)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sparknet-caffe-data");
    for (String s : List.of("idx_to_db.py", "write_lmdbs.py")) {
      CliFixtures.copyResource("/lmdb/" + s, dir.resolve(s));
    }
    List<String> cmd = new ArrayList<>(List.of(PYTHON, dir.resolve(script).toString()));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IllegalStateException(
          String.join(" ", cmd)
              + " failed (python3-lmdb and python3-plyvel: bin/setup --tests):\n"
              + out);
    }
    return out;
  }
}
