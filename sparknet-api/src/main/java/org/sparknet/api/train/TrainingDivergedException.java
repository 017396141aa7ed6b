package org.sparknet.api.train;

/**
 * Training produced a non-finite loss or weights. The trainer keeps the last good weights ({@link
 * SparkNetTrainer#getWeights()}); lower the learning rate or check the data of the named partition.
 */
public final class TrainingDivergedException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final int round;
  private final int partition;

  public TrainingDivergedException(String message, int round, int partition) {
    super(message);
    this.round = round;
    this.partition = partition;
  }

  /** The round (1-based) in which it happened. */
  public int round() {
    return round;
  }

  /** The partition at fault, or -1 when only the combined weights were non-finite. */
  public int partition() {
    return partition;
  }
}
