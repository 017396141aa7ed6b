package org.sparknet.apps.data.db;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.opencv.global.opencv_core;
import org.bytedeco.opencv.global.opencv_imgcodecs;
import org.bytedeco.opencv.opencv_core.Mat;
import org.sparknet.apps.testing.PythonScript;

/**
 * Caffe databases written by independent tools for the tests: lmdb/write_lmdbs.py (test resources)
 * run with Debian's /usr/bin/python3 (python3-lmdb, python3-plyvel, python3-pil), Datums
 * hand-encoded there in protobuf's wire format, and the pixels a reader must produce written beside
 * each database.
 */
final class CaffeDbs {
  private CaffeDbs() {}

  /** Runs the script's {@code kind} with {@code n} records into {@code dir/name}. */
  static Path write(Path dir, String kind, String name, int n)
      throws IOException, InterruptedException {
    Path out = dir.resolve(name);
    PythonScript.run("/lmdb/write_lmdbs.py", dir, kind, out.toString(), String.valueOf(n));
    return out;
  }

  /** The CHW bytes (or float32 bytes) of each record, in key order, {@code each} bytes a record. */
  static List<byte[]> expected(Path db, int each) throws IOException {
    byte[] all = Files.readAllBytes(Path.of(db + ".expected"));
    List<byte[]> out = new ArrayList<>();
    for (int off = 0; off < all.length; off += each) {
      byte[] r = new byte[each];
      System.arraycopy(all, off, r, 0, each);
      out.add(r);
    }
    return out;
  }

  static int[] labels(Path db) throws IOException {
    ByteBuffer b =
        ByteBuffer.wrap(Files.readAllBytes(Path.of(db + ".labels"))).order(ByteOrder.LITTLE_ENDIAN);
    int[] out = new int[b.remaining() / 4];
    for (int i = 0; i < out.length; i++) {
      out[i] = b.getInt();
    }
    return out;
  }

  /** The records of {@code range} as key, value pairs. */
  static List<byte[][]> records(RecordStore store, KeyRange range) {
    List<byte[][]> out = new ArrayList<>();
    store.scan(range, (k, v) -> out.add(new byte[][] {k, v}));
    return out;
  }

  static String key(byte[] k) {
    return new String(k, StandardCharsets.US_ASCII);
  }

  /** OpenCV's one-time native allocation on first use, paid before the leak check's snapshots. */
  static void loadOpenCv() {
    try (Mat m = new Mat(2, 2, opencv_core.CV_8UC1);
        BytePointer buf = new BytePointer()) {
      opencv_imgcodecs.imencode(".png", m, buf);
      byte[] png = new byte[(int) buf.limit()];
      buf.get(png);
      new Datum(0, 0, 0, png, 0, new float[0], true).toChw("warm-up");
    }
  }
}
