package org.sparknet.api;

import java.util.Map;
import org.sparknet.ndarray.NDArray;

/**
 * Writes one batch into a net's input blobs, just before a step. The arrays are views of the net's
 * own input memory (for Caffe: the CPU data of its {@code Input} blobs), keyed by blob name and
 * shaped as the blob is: writing into them is the only copy a batch makes. The views are valid only
 * during the call.
 */
@FunctionalInterface
public interface BatchFeeder {
  void fill(Map<String, NDArray> inputs);

  /**
   * Whether every value this feeder writes (features and labels) is known to be finite, so that the
   * net need not read each batch to check (class labels are still checked against their classes).
   * False unless the feeder knows: {@link org.sparknet.api.data.ShardFeeder} over a shard it has
   * scanned once.
   */
  default boolean writesFiniteValues() {
    return false;
  }
}
