package org.sparknet.api.data;

import java.io.Serializable;
import java.util.Arrays;
import java.util.Iterator;

/**
 * The examples of one partition packed into two contiguous arrays: features row-major ({@code count
 * x featureSize}) and labels ({@code count}). Built once per partition on the executor from an
 * {@code Iterator<Example>} and cached, so that every training step copies straight from one array
 * into the net's input blob.
 */
public final class DataShard implements Serializable {
  private static final long serialVersionUID = 1L;

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
    float[] feats = new float[0];
    float[] labs = new float[16];
    int n = 0;
    while (examples.hasNext()) {
      Example e = examples.next();
      if (size < 0) {
        size = e.features().length;
        feats = new float[16 * Math.max(1, size)];
      }
      if (e.features().length != size) {
        throw new IllegalArgumentException(
            source
                + " has "
                + e.features().length
                + " floats in example "
                + n
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
      if (n == labs.length) {
        labs = Arrays.copyOf(labs, n * 2);
      }
      long needed = (long) (n + 1) * size;
      if (needed > feats.length) {
        long grown = Math.max(needed, (long) feats.length * 2);
        if (grown > Integer.MAX_VALUE - 8) {
          grown = needed;
        }
        if (grown > Integer.MAX_VALUE - 8) {
          throw new IllegalArgumentException(
              "Partition "
                  + partition
                  + " holds more than "
                  + (Integer.MAX_VALUE - 8)
                  + " feature values; use more partitions (workers)");
        }
        feats = Arrays.copyOf(feats, (int) grown);
      }
      System.arraycopy(e.features(), 0, feats, n * size, size);
      labs[n] = e.label();
      n++;
    }
    if (size < 0) {
      size = 0;
    }
    return new DataShard(partition, size, Arrays.copyOf(feats, n * size), Arrays.copyOf(labs, n));
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
