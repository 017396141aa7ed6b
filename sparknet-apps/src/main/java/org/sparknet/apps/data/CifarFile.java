package org.sparknet.apps.data;

import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.fs.FSDataInputStream;
import org.sparknet.api.storage.StoragePath;

/**
 * One CIFAR binary batch file ({@code data_batch_1.bin}, {@code test.bin}, ...): fixed-size records
 * of label byte(s) then 3,072 pixel bytes, the red, green and blue 32x32 planes in that order.
 * CIFAR-10 records carry one label byte (10 classes), CIFAR-100 records a coarse (20 classes) and a
 * fine (100 classes) label byte. {@link #open} checks the size and every label, naming the file and
 * the record.
 */
public final class CifarFile {
  public static final int CHANNELS = 3;
  public static final int SIDE = 32;
  public static final int PIXELS = CHANNELS * SIDE * SIDE;

  /** The two layouts. */
  public enum Variant {
    CIFAR10(1, new int[] {10}),
    CIFAR100(2, new int[] {20, 100});

    final int labelBytes;
    final int[] classes;

    Variant(int labelBytes, int[] classes) {
      this.labelBytes = labelBytes;
      this.classes = classes;
    }

    public int recordSize() {
      return labelBytes + PIXELS;
    }
  }

  private final StoragePath path;
  private final Variant variant;
  private final int count;

  private CifarFile(StoragePath path, Variant variant, int count) {
    this.path = path;
    this.variant = variant;
    this.count = count;
  }

  /** Opens {@code path}, checking its size and the range of every label byte. */
  public static CifarFile open(Path path, Variant variant) {
    return open(StoragePath.of(path), variant);
  }

  /** {@link #open(Path, Variant)} for a file on any Hadoop file system. */
  public static CifarFile open(StoragePath path, Variant variant) {
    CifarFile f = openSized(path, variant);
    f.checkLabels();
    return f;
  }

  /** Opens {@code path} checking only its size (executors: the driver checked the labels). */
  static CifarFile openSized(StoragePath path, Variant variant) {
    if (!path.isFile()) {
      throw new IllegalArgumentException(
          "CIFAR file " + path + (path.exists() ? " is a directory" : " does not exist"));
    }
    long size = path.length();
    int rs = variant.recordSize();
    if (size == 0 || size % rs != 0) {
      throw new IllegalArgumentException(
          String.format(
              "CIFAR file %s has %,d bytes, not a positive multiple of the %,d-byte %s record"
                  + " (%d label byte%s + 3,072 pixels): it is truncated or not a %s batch",
              path,
              size,
              rs,
              variant == Variant.CIFAR10 ? "CIFAR-10" : "CIFAR-100",
              variant.labelBytes,
              variant.labelBytes == 1 ? "" : "s",
              variant == Variant.CIFAR10 ? "CIFAR-10" : "CIFAR-100"));
    }
    if (size / rs > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("CIFAR file " + path + " has too many records");
    }
    return new CifarFile(path, variant, (int) (size / rs));
  }

  public StoragePath path() {
    return path;
  }

  public Variant variant() {
    return variant;
  }

  public int count() {
    return count;
  }

  private void checkLabels() {
    int rs = variant.recordSize();
    int chunk = Math.max(1, (1 << 20) / rs);
    for (int from = 0; from < count; from += chunk) {
      int to = Math.min(count, from + chunk);
      byte[] b = readRecords(from, to);
      for (int r = 0; r < to - from; r++) {
        for (int k = 0; k < variant.labelBytes; k++) {
          int label = b[r * rs + k] & 0xff;
          if (label >= variant.classes[k]) {
            throw new IllegalArgumentException(
                "CIFAR file "
                    + path
                    + " record "
                    + (from + r)
                    + " has "
                    + (variant == Variant.CIFAR10
                        ? "label "
                        : k == 0 ? "coarse label " : "fine label ")
                    + label
                    + ", outside [0, "
                    + variant.classes[k]
                    + ")");
          }
        }
      }
    }
  }

  /** The raw bytes of records {@code [from, to)}, labels included. */
  public byte[] readRecords(int from, int to) {
    if (from < 0 || to > count || from > to) {
      throw new IllegalArgumentException(
          "Records [" + from + ", " + to + ") are outside " + path + ", which has " + count);
    }
    int rs = variant.recordSize();
    byte[] out = new byte[Math.multiplyExact(to - from, rs)];
    try (FSDataInputStream in = path.open()) {
      in.seek((long) from * rs);
      int n = in.readNBytes(out, 0, out.length);
      if (n != out.length) {
        throw new EOFException();
      }
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "CIFAR file " + path + " ended before record " + to + "; it changed since it was opened");
    } catch (IOException e) {
      throw new IllegalArgumentException("CIFAR file: " + path.problem("read", e).getMessage(), e);
    }
    return out;
  }
}
