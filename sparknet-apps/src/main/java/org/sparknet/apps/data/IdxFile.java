package org.sparknet.apps.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * One IDX file (the MNIST format: a magic number giving the element type and rank, the extents,
 * then the elements), gzip-compressed or plain. Only unsigned-byte elements are supported, which is
 * what MNIST and Fashion-MNIST use. Every error names the file and, for truncation, the record.
 */
public final class IdxFile {
  private static final int UNSIGNED_BYTE = 0x08;

  private final Path path;
  private final int[] dims;

  private IdxFile(Path path, int[] dims) {
    this.path = path;
    this.dims = dims;
  }

  /** Reads and validates the header of {@code path}. */
  public static IdxFile open(Path path) {
    try (DataInputStream in = stream(path)) {
      return new IdxFile(path, readHeader(in, path));
    } catch (IOException e) {
      throw unreadable(path, e);
    }
  }

  public Path path() {
    return path;
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
    try (DataInputStream in = stream(path)) {
      readHeader(in, path);
      in.skipNBytes((long) from * size);
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

  private static int[] readHeader(DataInputStream in, Path path) throws IOException {
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

  private static DataInputStream stream(Path path) throws IOException {
    InputStream raw = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
    raw.mark(2);
    int b0 = raw.read();
    int b1 = raw.read();
    raw.reset();
    if (b0 == 0x1f && b1 == 0x8b) {
      raw = new BufferedInputStream(new GZIPInputStream(raw, 1 << 16), 1 << 16);
    }
    return new DataInputStream(raw);
  }

  private static IllegalArgumentException unreadable(Path path, IOException e) {
    if (e instanceof NoSuchFileException) {
      return new IllegalArgumentException("IDX file " + path + " does not exist", e);
    }
    return new IllegalArgumentException("Cannot read IDX file " + path + ": " + e.getMessage(), e);
  }
}
