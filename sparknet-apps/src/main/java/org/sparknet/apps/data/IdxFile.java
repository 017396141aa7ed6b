package org.sparknet.apps.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.sparknet.api.storage.StoragePath;

/**
 * One IDX file (the MNIST format: a magic number giving the element type and rank, the extents,
 * then the elements), gzip-compressed or plain. Only unsigned-byte elements are supported, which is
 * what MNIST and Fashion-MNIST use. Every error names the file and, for truncation, the record.
 *
 * <p>The file may live on any Hadoop file system ({@link StoragePath}). A plain file is read as a
 * range of records: the reader seeks to the first one, so a Spark task reads only its own bytes,
 * and a file shorter than its header declares is found when it is opened, from its length. A
 * gzipped file cannot be entered in the middle: each reader decompresses from the start and skips
 * to its range (every task of a split dataset reads the prefix before its range), and truncation
 * shows when the range is read.
 */
public final class IdxFile {
  private static final int UNSIGNED_BYTE = 0x08;

  private final StoragePath path;
  private final int[] dims;
  private final boolean gzipped;

  private IdxFile(StoragePath path, int[] dims, boolean gzipped) {
    this.path = path;
    this.dims = dims;
    this.gzipped = gzipped;
  }

  /** Reads and validates the header of the local file {@code path}. */
  public static IdxFile open(Path path) {
    return open(StoragePath.of(path));
  }

  /**
   * Reads and validates the header of {@code path}; a plain file must be as long as its header
   * declares.
   */
  public static IdxFile open(StoragePath path) {
    if (path.isDirectory()) {
      throw new IllegalArgumentException("IDX file " + path + " is a directory");
    }
    IdxFile f;
    try (FSDataInputStream raw = path.open()) {
      boolean gz = isGzip(raw);
      try (DataInputStream in = stream(raw, gz)) {
        f = new IdxFile(path, readHeader(in, path), gz);
      }
    } catch (IOException e) {
      throw unreadable(path, e);
    }
    if (!f.gzipped) {
      long expected = f.headerBytes() + (long) f.count() * f.recordSize();
      long actual = path.length();
      if (actual < expected) {
        throw new IllegalArgumentException(
            String.format(
                "IDX file %s is truncated: it holds %,d bytes but its header declares %,d records"
                    + " of %,d bytes (%,d bytes in all); it ends inside record %d",
                path,
                actual,
                f.count(),
                f.recordSize(),
                expected,
                (actual - f.headerBytes()) / Math.max(1, f.recordSize())));
      }
    }
    return f;
  }

  public StoragePath path() {
    return path;
  }

  private long headerBytes() {
    return 4L + 4L * dims.length;
  }

  /** Number of records (the first extent). */
  public int count() {
    return dims[0];
  }

  /** Extents of one record (for images: rows, columns); empty for labels. */
  public int[] recordDims() {
    return Arrays.copyOfRange(dims, 1, dims.length);
  }

  /** Bytes per record. */
  public int recordSize() {
    int n = 1;
    for (int i = 1; i < dims.length; i++) {
      n *= dims[i];
    }
    return n;
  }

  /**
   * Reads records {@code [from, to)} as unsigned bytes, one record after another. A file that ends
   * early fails naming the record where it ended.
   */
  public byte[] readRecords(int from, int to) {
    if (from < 0 || to > count() || from > to) {
      throw new IllegalArgumentException(
          "Records [" + from + ", " + to + ") are outside " + path + ", which has " + count());
    }
    int size = recordSize();
    byte[] out = new byte[Math.multiplyExact(to - from, size)];
    try (FSDataInputStream raw = path.open();
        DataInputStream in = stream(raw, gzipped)) {
      if (gzipped) {
        readHeader(in, path);
        in.skipNBytes((long) from * size);
      } else {
        raw.seek(headerBytes() + (long) from * size);
      }
      for (int r = from; r < to; r++) {
        try {
          in.readFully(out, (r - from) * size, size);
        } catch (EOFException e) {
          throw new IllegalArgumentException(
              "IDX file "
                  + path
                  + " is truncated: it ends inside record "
                  + r
                  + " of the "
                  + count()
                  + " its header declares");
        }
      }
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "IDX file " + path + " is truncated before record " + from + " of " + count());
    } catch (IOException e) {
      throw unreadable(path, e);
    }
    return out;
  }

  private static int[] readHeader(DataInputStream in, StoragePath path) throws IOException {
    int magic;
    try {
      magic = in.readInt();
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "IDX file " + path + " is empty or shorter than its header");
    }
    if ((magic >>> 16) != 0
        || ((magic >>> 8) & 0xff) != UNSIGNED_BYTE
        || (magic & 0xff) == 0
        || (magic & 0xff) > 4) {
      throw new IllegalArgumentException(
          String.format(
              "File %s is not an unsigned-byte IDX file: magic number 0x%08x (expected 0x0000080N with N"
                  + " the rank, 0x00000801 for labels, 0x00000803 for images)",
              path, magic));
    }
    int rank = magic & 0xff;
    int[] dims = new int[rank];
    for (int i = 0; i < rank; i++) {
      try {
        dims[i] = in.readInt();
      } catch (EOFException e) {
        throw new IllegalArgumentException("IDX file " + path + " is truncated inside its header");
      }
      if (dims[i] < 0) {
        throw new IllegalArgumentException(
            "IDX file " + path + " declares a negative extent " + dims[i] + " at dimension " + i);
      }
    }
    return dims;
  }

  /** Whether the file starts with gzip's magic bytes; leaves {@code raw} at its start. */
  private static boolean isGzip(FSDataInputStream raw) throws IOException {
    int b0 = raw.read();
    int b1 = raw.read();
    raw.seek(0);
    return b0 == 0x1f && b1 == 0x8b;
  }

  /** A reader over {@code raw} from its current position (which a gzipped file needs at 0). */
  private static DataInputStream stream(FSDataInputStream raw, boolean gzipped) throws IOException {
    InputStream in = new BufferedInputStream(raw, 1 << 16);
    if (gzipped) {
      in = new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
    }
    return new DataInputStream(in);
  }

  private static IllegalArgumentException unreadable(StoragePath path, IOException e) {
    IllegalArgumentException p = path.problem("read", e);
    return new IllegalArgumentException("IDX file: " + p.getMessage(), e);
  }
}
