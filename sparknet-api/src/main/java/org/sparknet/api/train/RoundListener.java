package org.sparknet.api.train;

/** Called on the driver after each completed round, on the thread that runs the training. */
@FunctionalInterface
public interface RoundListener {
  void onRound(RoundMetrics metrics);
}
