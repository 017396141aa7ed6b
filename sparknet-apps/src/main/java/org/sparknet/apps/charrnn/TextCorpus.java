package org.sparknet.apps.charrnn;

import java.io.EOFException;
import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.data.Example;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.PositiveCounts;

/**
 * A text corpus for character models: the files under a directory (on any Hadoop file system) with
 * a given extension, in URI order, read as one byte stream (at most {@code maxBytes}). Only the
 * list of files travels to the executors; every partition reads its own byte range there and cuts
 * it into windows of {@code steps + 1} tokens that overlap by one (each character is predicted once
 * per epoch).
 */
public final class TextCorpus implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * One file and the bytes of it that belong to the corpus. The parts of one scan share one {@link
   * org.sparknet.api.storage.StorageSettings}, which Java serialization writes once.
   */
  public record Part(StoragePath path, long bytes) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  private final String root;
  private final List<Part> parts;
  private final long size;

  private TextCorpus(String root, List<Part> parts) {
    this.root = root;
    this.parts = List.copyOf(parts);
    this.size = parts.stream().mapToLong(Part::bytes).sum();
  }

  /**
   * The files under {@code root} (or {@code root} itself if it is a file) whose names end with
   * {@code extension}, sorted by URI, cut at {@code maxBytes} in total. {@code root} may be on any
   * Hadoop file system; only the listing and the file sizes are read here, on the driver.
   */
  public static TextCorpus scan(StoragePath root, String extension, long maxBytes) {
    if (maxBytes < 2) {
      throw new IllegalArgumentException("maxBytes must be >= 2 but was " + maxBytes);
    }
    if (!root.exists()) {
      throw new IllegalArgumentException("Text corpus " + root + " does not exist");
    }
    List<StoragePath> files =
        root.isFile()
            ? List.of(root)
            : root.listFilesRecursively().stream()
                .filter(p -> p.name().endsWith(extension))
                .collect(Collectors.toList());
    List<Part> parts = new ArrayList<>();
    long left = maxBytes;
    for (StoragePath f : files) {
      if (left == 0) {
        break;
      }
      long n = f.length();
      if (n > 0) {
        long take = Math.min(n, left);
        parts.add(new Part(f, take));
        left -= take;
      }
    }
    TextCorpus c = new TextCorpus(root.toString(), parts);
    if (c.size < 2) {
      throw new IllegalArgumentException(
          "Text corpus "
              + root
              + " holds no text: no non-empty file ending with '"
              + extension
              + "' under it");
    }
    return c;
  }

  public long size() {
    return size;
  }

  public int files() {
    return parts.size();
  }

  /** The corpus bytes in [from, to), read from the files. */
  public byte[] read(long from, long to) {
    if (from < 0 || to > size || from > to) {
      throw new IllegalArgumentException(
          "Byte range [" + from + ", " + to + ") is outside the corpus of " + size + " bytes");
    }
    byte[] out = new byte[Math.toIntExact(to - from)];
    long start = 0;
    int written = 0;
    for (Part p : parts) {
      long end = start + p.bytes();
      long a = Math.max(from, start);
      long b = Math.min(to, end);
      if (a < b) {
        try (FSDataInputStream in = p.path().open()) {
          in.readFully(a - start, out, written, (int) (b - a));
        } catch (EOFException e) {
          throw new IllegalArgumentException(
              "Text file " + p.path() + " is shorter than when the corpus was scanned", e);
        } catch (IOException e) {
          throw p.path().problem("read", e);
        }
        written += (int) (b - a);
      }
      start = end;
    }
    return out;
  }

  /**
   * Windows of {@code steps + 1} tokens over the bytes [from, to), in {@code partitions} partitions
   * that each read their own contiguous range on the executor.
   */
  public JavaRDD<Example> windows(
      JavaSparkContext sc, int partitions, int steps, long from, long to) {
    PositiveCounts.require("partitions and steps", partitions, steps);
    if ((to - from) / partitions < steps + 1) {
      throw new IllegalArgumentException(
          "The text range ["
              + from
              + ", "
              + to
              + ") of "
              + root
              + " is too short for "
              + partitions
              + " partitions of windows of "
              + (steps + 1)
              + " characters");
    }
    TextCorpus corpus = this; // serializable: the file list only
    List<Integer> shards = IntStream.range(0, partitions).boxed().collect(Collectors.toList());
    return sc.parallelize(shards, partitions)
        .flatMap(
            p -> {
              long a = from + (to - from) * p / partitions;
              long b = from + (to - from) * (p + 1) / partitions;
              return cut(corpus.read(a, b), steps).iterator();
            });
  }

  /** Windows of steps + 1 tokens, stride steps; a short tail is dropped. */
  static List<Example> cut(byte[] text, int steps) {
    List<Example> out = new ArrayList<>();
    for (int start = 0; start + steps + 1 <= text.length; start += steps) {
      float[] w = new float[steps + 1];
      for (int t = 0; t <= steps; t++) {
        w[t] = CharRnn.token(text[start + t]);
      }
      out.add(new Example(w, 0f));
    }
    return out;
  }

  @Override
  public String toString() {
    return "TextCorpus{" + root + ", " + parts.size() + " files, " + size + " bytes}";
  }
}
