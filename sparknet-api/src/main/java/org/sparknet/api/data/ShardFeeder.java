package org.sparknet.api.data;

import java.util.Map;
import java.util.SplittableRandom;
import org.sparknet.api.BatchFeeder;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Feeds a {@link DataShard} to a net, one batch per step, in exact epochs: every example exactly
 * once per epoch, in an order reshuffled at each epoch by a generator seeded with (seed, partition,
 * epoch). The order of epoch e does not depend on earlier epochs, so a feeder can start at any
 * position (examples already fed) and continue exactly where an earlier one stopped; that is how
 * the trainer carries the data position across rounds and checkpoints. A shard smaller than a batch
 * wraps into the next epoch.
 *
 * <p>The batch size is the first axis of the data blob. Each row of the data blob receives one
 * example's features (the blob's remaining axes must hold exactly the shard's feature size); the
 * label blob, when the net has one, receives the labels.
 */
public final class ShardFeeder implements BatchFeeder {
  private final DataShard shard;
  private final String dataBlob;
  private final String labelBlob;
  private String contBlob = "cont";
  private final long seed;
  private final int partition;
  private final boolean shuffle;
  private final int[] order;
  private long epoch;
  private int position;
  private long fed;
  private float[] featureBuffer = new float[0];
  private float[] labelBuffer = new float[0];

  /**
   * A shuffling feeder that starts after {@code alreadyFed} examples (0 for a fresh start).
   *
   * @param dataBlob the input blob that receives features, for example "data"
   * @param labelBlob the input blob that receives labels, for example "label"; skipped when the net
   *     has no such input
   */
  public ShardFeeder(
      DataShard shard,
      String dataBlob,
      String labelBlob,
      long seed,
      int partition,
      long alreadyFed) {
    this(shard, dataBlob, labelBlob, seed, partition, alreadyFed, true);
  }

  private ShardFeeder(
      DataShard shard,
      String dataBlob,
      String labelBlob,
      long seed,
      int partition,
      long alreadyFed,
      boolean shuffle) {
    if (shard.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot feed an empty shard (partition " + shard.partition() + ")");
    }
    if (alreadyFed < 0) {
      throw new IllegalArgumentException("alreadyFed must be >= 0 but was " + alreadyFed);
    }
    this.shard = shard;
    this.dataBlob = dataBlob;
    this.labelBlob = labelBlob;
    this.seed = seed;
    this.partition = partition;
    this.shuffle = shuffle;
    this.order = new int[shard.count()];
    this.epoch = alreadyFed / shard.count();
    this.position = (int) (alreadyFed % shard.count());
    reorder();
  }

  /** A feeder that walks the shard once in stored order, then wraps: for testing a model. */
  public static ShardFeeder sequential(DataShard shard, String dataBlob, String labelBlob) {
    return new ShardFeeder(shard, dataBlob, labelBlob, 0, shard.partition(), 0, false);
  }

  /** The permutation of epoch {@code epoch} of a shard of {@code count} examples. */
  public static int[] epochOrder(int count, long seed, int partition, long epoch) {
    int[] order = new int[count];
    fillOrder(order, seed, partition, epoch, true);
    return order;
  }

  private static void fillOrder(
      int[] order, long seed, int partition, long epoch, boolean shuffle) {
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    if (!shuffle) {
      return;
    }
    long mixed = seed * 0x9E3779B97F4A7C15L + (partition + 1L) * 0xC2B2AE3D27D4EB4FL + epoch;
    SplittableRandom rnd = new SplittableRandom(mixed);
    for (int i = order.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
  }

  private void reorder() {
    fillOrder(order, seed, partition, epoch, shuffle);
  }

  /**
   * Names the sequence-continuation input (default "cont"). When the net has it, batches are
   * time-major, as Caffe's recurrent layers read them: the data and label blobs are [T, N], each
   * example is a window of T + 1 tokens, stream n of the batch gets window n's first T tokens as
   * data and its last T as labels (the next token at each step), and cont is 0 at t = 0 and 1 after
   * (every window starts a fresh sequence, so windows can be shuffled like images).
   */
  public ShardFeeder withContBlob(String name) {
    this.contBlob = name;
    return this;
  }

  /**
   * Floats per example that a net with these train inputs reads: a row of the data blob, or T + 1
   * tokens for a time-major recurrent net (one with {@code contBlob}).
   */
  public static int exampleSize(Map<String, Shape> inputs, String dataBlob, String contBlob) {
    Shape data = inputs.get(dataBlob);
    if (contBlob != null && inputs.containsKey(contBlob)) {
      if (data.rank() != 2) {
        throw new IllegalArgumentException(
            "Blob '"
                + dataBlob
                + "' of shape "
                + data
                + " must be [T, N] (time steps, streams): the net has a '"
                + contBlob
                + "' input, so it is fed time-major, one token per step");
      }
      return data.dim(0) + 1;
    }
    return Math.toIntExact(data.size() / data.dim(0));
  }

  /** Examples per batch: the data blob's first dim, or its second (N) for a time-major net. */
  public static int batchSize(Map<String, Shape> inputs, String dataBlob, String contBlob) {
    Shape data = inputs.get(dataBlob);
    boolean timeMajor = contBlob != null && inputs.containsKey(contBlob) && data.rank() == 2;
    return timeMajor ? data.dim(1) : data.dim(0);
  }

  /** True when the shard's features and labels are all finite (it scans them once). */
  @Override
  public boolean writesFiniteValues() {
    return shard.allFinite();
  }

  @Override
  public void fill(Map<String, NDArray> inputs) {
    NDArray data = inputs.get(dataBlob);
    if (data == null) {
      throw new IllegalArgumentException(
          "The net has no input blob '"
              + dataBlob
              + "' for the features; its inputs are "
              + inputs.keySet()
              + "; set the data blob name in the trainer config");
    }
    NDArray cont = contBlob == null ? null : inputs.get(contBlob);
    if (cont != null) {
      fillTimeMajor(data, cont, labelBlob == null ? null : inputs.get(labelBlob));
      return;
    }
    if (data.rank() < 1) {
      throw new IllegalArgumentException("Input blob '" + dataBlob + "' has no batch axis");
    }
    int batch = data.shape().dim(0);
    long perRow = batch == 0 ? 0 : data.size() / batch;
    if (perRow != shard.featureSize()) {
      throw new IllegalArgumentException(
          "Blob '"
              + dataBlob
              + "' of shape "
              + data.shape()
              + " expects "
              + perRow
              + " floats per example but the data has "
              + shard.featureSize()
              + "; fix the data or the net's input shape");
    }
    NDArray label = labelBlob == null ? null : inputs.get(labelBlob);
    if (label != null && label.size() != batch) {
      throw new IllegalArgumentException(
          "Label blob '"
              + labelBlob
              + "' of shape "
              + label.shape()
              + " must hold one value per example of the batch ("
              + batch
              + ")");
    }
    int fs = shard.featureSize();
    if (labelBuffer.length != batch) {
      labelBuffer = new float[batch];
    }
    // Each example straight from the shard into its row of the blob: one copy, not two through a
    // staging array, since a GPU step waits for the batch.
    float[] features = shard.features();
    for (int r = 0; r < batch; r++) {
      int i = nextExample();
      data.slice(0, r).copyFrom(features, i * fs);
      labelBuffer[r] = shard.label(i);
    }
    fed += batch;
    if (label != null) {
      label.copyFrom(labelBuffer);
    }
  }

  private void fillTimeMajor(NDArray data, NDArray cont, NDArray label) {
    if (data.rank() != 2) {
      throw new IllegalArgumentException(
          "Blob '" + dataBlob + "' of shape " + data.shape() + " must be [T, N] (time-major)");
    }
    int steps = data.shape().dim(0);
    int streams = data.shape().dim(1);
    if (shard.featureSize() != steps + 1) {
      throw new IllegalArgumentException(
          "Blob '"
              + dataBlob
              + "' of shape "
              + data.shape()
              + " reads windows of "
              + (steps + 1)
              + " tokens (T = "
              + steps
              + " inputs and the next token of each) but the examples hold "
              + shard.featureSize()
              + "; cut the text into windows of T + 1");
    }
    for (NDArray other : new NDArray[] {cont, label}) {
      if (other != null && !other.shape().equals(data.shape())) {
        throw new IllegalArgumentException(
            "Blobs '"
                + contBlob
                + "' and '"
                + labelBlob
                + "' must have the shape of '"
                + dataBlob
                + "' "
                + data.shape()
                + " but one has "
                + other.shape());
      }
    }
    int n = steps * streams;
    int fs = shard.featureSize();
    if (featureBuffer.length != n + fs) {
      featureBuffer = new float[n + fs]; // n time-major tokens, then one window
      labelBuffer = new float[2 * n]; // labels, then cont
    }
    for (int r = 0; r < streams; r++) {
      int i = nextExample();
      shard.copyFeatures(i, featureBuffer, n);
      for (int t = 0; t < steps; t++) {
        featureBuffer[t * streams + r] = featureBuffer[n + t];
        labelBuffer[t * streams + r] = featureBuffer[n + t + 1];
        labelBuffer[n + t * streams + r] = t == 0 ? 0f : 1f;
      }
    }
    fed += streams;
    data.copyFrom(featureBuffer, 0);
    if (label != null) {
      label.copyFrom(labelBuffer, 0);
    }
    cont.copyFrom(labelBuffer, n);
  }

  /** The next example in this epoch's order; past the last, the next epoch starts, reordered. */
  private int nextExample() {
    if (position == order.length) {
      epoch++;
      position = 0;
      reorder();
    }
    return order[position++];
  }

  /** Examples written into the net by this feeder (batch rows, wrapped ones included). */
  public long examplesFed() {
    return fed;
  }

  /** The epoch the next example belongs to (0-based, counted from the start of the data). */
  public long epoch() {
    return position == order.length ? epoch + 1 : epoch;
  }
}
