package org.sparknet.api.data;

import java.io.Serializable;
import java.util.Objects;

/**
 * Which input blobs of a net receive an example: its features ({@code data}), its label ({@code
 * label}, skipped when the net has no such input) and, for recurrent nets, the sequence
 * continuation ({@code cont}: a net with this input is fed time-major, see {@link ShardFeeder}).
 */
public record InputBlobs(String data, String label, String cont) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Caffe's usual names: "data", "label" and "cont". */
  public static final InputBlobs DEFAULT = new InputBlobs("data", "label", "cont");

  public InputBlobs {
    Objects.requireNonNull(data, "data");
  }

  /** A feeder of {@code shard} over these blobs, shuffling per epoch from {@code alreadyFed}. */
  public ShardFeeder shuffled(DataShard shard, long seed, int partition, long alreadyFed) {
    return new ShardFeeder(shard, data, label, seed, partition, alreadyFed).withContBlob(cont);
  }

  /** A feeder that walks {@code shard} once in stored order, then wraps. */
  public ShardFeeder sequential(DataShard shard) {
    return ShardFeeder.sequential(shard, data, label).withContBlob(cont);
  }
}
