package org.sparknet.api.predict;

import java.util.Map;
import org.sparknet.ndarray.NDArray;

/**
 * Examples for a {@link BatchPredictor}, one batch at a time. A batch always fills the whole input
 * blob; when fewer examples remain, the rest of the batch is padding whose outputs are dropped.
 */
public interface BatchSource {

  /** Whether another batch with at least one example remains. */
  boolean hasNext();

  /**
   * Writes the next batch into the net's input views (shaped as the blobs are) and returns how many
   * of its rows are examples (at least 1); the rows after them are padding.
   */
  int fill(Map<String, NDArray> inputs);
}
