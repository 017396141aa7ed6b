package org.sparknet.api.predict;

import java.util.Map;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.ndarray.NDArray;

/**
 * One pass over a {@link DataShard} in stored order, fed as in training ({@link ShardFeeder}, time
 * major for recurrent nets): a last, partial batch wraps around to the shard's first examples,
 * which count as padding.
 */
public final class ShardBatches implements BatchSource {
  private final ShardFeeder feeder;
  private final int count;
  private long done;

  public ShardBatches(DataShard shard, InputBlobs blobs) {
    this.feeder = blobs.sequential(shard);
    this.count = shard.count();
  }

  @Override
  public boolean hasNext() {
    return done < count;
  }

  @Override
  public int fill(Map<String, NDArray> inputs) {
    long before = feeder.examplesFed();
    feeder.fill(inputs);
    int rows = Math.toIntExact(feeder.examplesFed() - before);
    int fresh = (int) Math.min(rows, count - done);
    done += fresh;
    return fresh;
  }
}
