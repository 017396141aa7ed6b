package org.sparknet.api.data;

import java.util.Map;
import java.util.SplittableRandom;
import org.sparknet.api.BatchFeeder;
import org.sparknet.ndarray.NDArray;

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
    if (featureBuffer.length != batch * fs) {
      featureBuffer = new float[batch * fs];
      labelBuffer = new float[batch];
    }
    for (int r = 0; r < batch; r++) {
      if (position == order.length) {
        epoch++;
        position = 0;
        reorder();
      }
      int i = order[position++];
      shard.copyFeatures(i, featureBuffer, r * fs);
      labelBuffer[r] = shard.label(i);
    }
    fed += batch;
    data.copyFrom(featureBuffer);
    if (label != null) {
      label.copyFrom(labelBuffer);
    }
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
