package org.sparknet.api.spark;

import java.io.Serializable;
import java.util.List;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.train.RoundMetrics;

/**
 * What a fitted SparkNet model holds besides its params: the trained weights and the metrics of the
 * rounds that trained them (empty for a model that was not trained). Shared by {@link
 * SparkNetModel} and {@link SparkNetClassificationModel}.
 */
final class TrainedNet implements Serializable {
  private static final long serialVersionUID = 1L;

  private final WeightCollection weights;
  private final List<RoundMetrics> history;

  TrainedNet(WeightCollection weights, List<RoundMetrics> history) {
    this.weights = weights.copy();
    this.history = List.copyOf(history);
  }

  /** The weights, not copied: for the model's own use. */
  WeightCollection weights() {
    return weights;
  }

  List<RoundMetrics> history() {
    return history;
  }

  String describe(String type, String uid, String engine) {
    return type
        + "{uid "
        + uid
        + ", engine "
        + engine
        + ", "
        + weights
        + ", "
        + history.size()
        + " rounds trained}";
  }
}
