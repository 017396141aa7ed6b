package org.sparknet.api.data;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;

/**
 * The examples of one partition packed into two contiguous arrays: features row-major ({@code count
 * x featureSize}) and labels ({@code count}). Built once per partition on the executor from an
 * {@code Iterator<Example>} and cached, so that every training step copies straight from one array
 * into the net's input blob.
 */
public final class DataShard implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Floats in one block of rows while a shard is packed (16 MB). */
  private static final int BLOCK_FLOATS = 1 << 22;

  private final int partition;
  private final int featureSize;
  private final int count;
  private final float[] features;
  private final float[] labels;
  private transient volatile Boolean finite;

  /**
   * @param features {@code count * featureSize} floats, row-major; not copied
   * @param labels {@code count} labels; not copied
   */
  public DataShard(int partition, int featureSize, float[] features, float[] labels) {
    if (featureSize < 0) {
      throw new IllegalArgumentException("featureSize must be >= 0 but was " + featureSize);
    }
    if ((long) labels.length * featureSize != features.length) {
      throw new IllegalArgumentException(
          "A shard of "
              + labels.length
              + " examples of "
              + featureSize
              + " floats needs "
              + (long) labels.length * featureSize
              + " feature values but has "
              + features.length);
    }
    this.partition = partition;
    this.featureSize = featureSize;
    this.count = labels.length;
    this.features = features;
    this.labels = labels;
  }

  /** Packs examples whose feature size is whatever the first one has. */
  public static DataShard pack(int partition, Iterator<Example> examples) {
    return pack(partition, examples, -1, "Example.features", null);
  }

  /**
   * Packs {@code examples} into one shard.
   *
   * @param expectedFeatureSize the floats each example must have, or -1 to take the first one's
   * @param source names the data in error messages, for example "column 'features'"
   * @param target names what expects the size, for example "blob 'data' [64, 1, 28, 28]"; may be
   *     null
   * @throws IllegalArgumentException naming the source, example, expected and found size when an
   *     example has another size
   */
  public static DataShard pack(
      int partition,
      Iterator<Example> examples,
      int expectedFeatureSize,
      String source,
      String target) {
    int size = expectedFeatureSize;
    // Rows gather in blocks of about BLOCK_FLOATS, copied once into an array of the exact size at
    // the end: the partition's size is unknown until then, and a doubling array would need up to
    // three times the shard while it grows and is trimmed, blocks twice.
    List<float[]> blocks = new ArrayList<>();
    float[] block = null;
    int rowsPerBlock = 0;
    int inBlock = 0;
    float[] labs = new float[16];
    int n = 0;
    while (examples.hasNext()) {
      Example e = examples.next();
      if (size < 0) {
        size = e.features().length;
      }
      if (e.features().length != size) {
        throw wrongSize(partition, n, e.features().length, size, source, target);
      }
      if (block == null || inBlock == rowsPerBlock) {
        rowsPerBlock = (int) Math.max(1, BLOCK_FLOATS / Math.max(1, size));
        block = new float[rowsPerBlock * size];
        blocks.add(block);
        inBlock = 0;
      }
      if (n == labs.length) {
        labs = Arrays.copyOf(labs, n * 2);
      }
      if ((long) (n + 1) * size > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            "Partition "
                + partition
                + " holds more than "
                + (Integer.MAX_VALUE - 8)
                + " feature values; use more partitions (workers)");
      }
      System.arraycopy(e.features(), 0, block, inBlock * size, size);
      inBlock++;
      labs[n] = e.label();
      n++;
    }
    size = Math.max(size, 0);
    float[] feats = new float[n * size];
    for (int b = 0, at = 0; b < blocks.size(); b++) {
      int len = Math.min(blocks.get(b).length, feats.length - at);
      System.arraycopy(blocks.get(b), 0, feats, at, len);
      blocks.set(b, null); // collectable before the next block is copied
      at += len;
    }
    return new DataShard(partition, size, feats, Arrays.copyOf(labs, n));
  }

  private static IllegalArgumentException wrongSize(
      int partition, int example, int found, int size, String source, String target) {
    return new IllegalArgumentException(
        source
            + " has "
            + found
            + " floats in example "
            + example
            + " of partition "
            + partition
            + " but "
            + (target == null ? "the first example of the partition" : target)
            + " expects "
            + size
            + (target == null
                ? "; every example must have the same number of features"
                : "; fix the data or the net's input shape"));
  }

  /** The partition this shard was built from. */
  public int partition() {
    return partition;
  }

  /** Floats per example. */
  public int featureSize() {
    return featureSize;
  }

  /** Number of examples. */
  public int count() {
    return count;
  }

  public boolean isEmpty() {
    return count == 0;
  }

  /** Copies example {@code i}'s features into {@code dest} at {@code offset}. */
  public void copyFeatures(int i, float[] dest, int offset) {
    System.arraycopy(features, i * featureSize, dest, offset, featureSize);
  }

  public float label(int i) {
    return labels[i];
  }

  /**
   * Whether every feature and label is finite: scanned once, on first asking, so that feeding a
   * batch need not read it again, a read a GPU step would wait for.
   */
  public boolean allFinite() {
    Boolean f = finite;
    if (f == null) {
      f = allFinite(features) && allFinite(labels);
      finite = f;
    }
    return f;
  }

  private static boolean allFinite(float[] values) {
    boolean all = true;
    for (float v : values) {
      all &= Float.isFinite(v);
    }
    return all;
  }

  /** The packed features, row-major (not a copy). */
  public float[] features() {
    return features;
  }

  /** The labels (not a copy). */
  public float[] labels() {
    return labels;
  }

  /** The examples {@code rows} of this shard as a new shard of the given partition index. */
  public DataShard select(int newPartition, int[] rows) {
    float[] f = new float[rows.length * featureSize];
    float[] l = new float[rows.length];
    for (int i = 0; i < rows.length; i++) {
      copyFeatures(rows[i], f, i * featureSize);
      l[i] = labels[rows[i]];
    }
    return new DataShard(newPartition, featureSize, f, l);
  }

  /** Concatenates shards of equal feature size (empty ones may have any). */
  public static DataShard concat(int newPartition, Iterable<DataShard> shards) {
    int size = -1;
    long n = 0;
    for (DataShard s : shards) {
      if (s.count == 0) {
        continue;
      }
      if (size >= 0 && s.featureSize != size) {
        throw new IllegalArgumentException(
            "Cannot join shards of " + size + " and " + s.featureSize + " floats per example");
      }
      size = s.featureSize;
      n += s.count;
    }
    size = Math.max(size, 0);
    float[] f = new float[Math.toIntExact(n * size)];
    float[] l = new float[(int) n];
    int at = 0;
    for (DataShard s : shards) {
      if (s.count == 0) {
        continue;
      }
      System.arraycopy(s.features, 0, f, at * size, s.count * size);
      System.arraycopy(s.labels, 0, l, at, s.count);
      at += s.count;
    }
    return new DataShard(newPartition, size, f, l);
  }

  @Override
  public String toString() {
    return "DataShard{partition "
        + partition
        + ", "
        + count
        + " examples of "
        + featureSize
        + " floats}";
  }
}
