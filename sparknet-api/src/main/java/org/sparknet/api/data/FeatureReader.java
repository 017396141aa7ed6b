package org.sparknet.api.data;

/**
 * Reads one item's features (and label) for batched inference ({@code ExampleBatches}): a DataFrame
 * row's vector column, an {@code Example}, a shard's row.
 */
public interface FeatureReader<T> {

  /**
   * Writes the item's {@code size} features at {@code dest[offset..offset+size)}.
   *
   * @throws IllegalArgumentException naming the item and column when it has another size or a null
   */
  void read(T item, float[] dest, int offset, int size);

  /** The item's label, written into the label blob when the net has one (0 when unlabelled). */
  default float label(T item) {
    return 0f;
  }
}
