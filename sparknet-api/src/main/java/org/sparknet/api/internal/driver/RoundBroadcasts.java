package org.sparknet.api.internal.driver;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.SolverState;
import org.sparknet.api.internal.wire.LocalHandoff;
import org.sparknet.api.internal.wire.RoundOrders;

/**
 * What a round's (or an asynchronous job's) tasks read from the driver by broadcast: the weights
 * the round starts from and, in the first round after a resume, the solver states and the workers'
 * own weights. Every round driver builds its {@link RoundOrders} from these and releases them when
 * its job is over, so the three are made and released in one place.
 *
 * @param weights null when the weights reach the tasks otherwise (handed over in this JVM, or
 *     pulled from a parameter server)
 * @param solverStates null unless the start has solver states
 * @param workerWeights null unless the start has the workers' own weights
 * @param broadcastNanos the time spent making the weights reachable: the round's broadcast time
 *     counts only the weights, the part every round pays
 * @param localKey the round's key in {@link LocalHandoff}, or null
 */
record RoundBroadcasts(
    Broadcast<float[]> weights,
    Broadcast<SolverState[]> solverStates,
    Broadcast<float[][]> workerWeights,
    long broadcastNanos,
    String localKey) {

  /** Nothing broadcast: releasing it does nothing. */
  static final RoundBroadcasts NONE = new RoundBroadcasts(null, null, null, 0, null);

  /**
   * Broadcasts {@code start}'s weights, or with a {@code localKey} hands them over in this JVM
   * ({@link LocalHandoff}), and its solver states and workers' weights where it has them.
   */
  static RoundBroadcasts of(JavaSparkContext sc, DriverRound.Start start, String localKey) {
    long t0 = System.nanoTime();
    Broadcast<float[]> weights = null;
    if (localKey != null) {
      LocalHandoff.putCentre(localKey, start.weights());
    } else {
      weights = sc.broadcast(start.weights());
    }
    long broadcastNanos = System.nanoTime() - t0;
    return withStates(sc, start, weights, broadcastNanos, localKey);
  }

  /**
   * Only {@code start}'s solver states and workers' weights, where it has them: the asynchronous
   * workers pull the weights from the parameter server instead.
   */
  static RoundBroadcasts withoutWeights(JavaSparkContext sc, DriverRound.Start start) {
    return withStates(sc, start, null, 0, null);
  }

  private static RoundBroadcasts withStates(
      JavaSparkContext sc,
      DriverRound.Start start,
      Broadcast<float[]> weights,
      long broadcastNanos,
      String localKey) {
    Broadcast<SolverState[]> states =
        start.solverStates() == null ? null : sc.broadcast(start.solverStates());
    Broadcast<float[][]> own =
        start.workerWeights() == null ? null : sc.broadcast(start.workerWeights());
    return new RoundBroadcasts(weights, states, own, broadcastNanos, localKey);
  }

  /** The orders of {@code start}'s round over these broadcasts. */
  RoundOrders orders(DriverRound.Start start) {
    return new RoundOrders(
        start.round(),
        weights,
        start.positions(),
        start.weightsToken(),
        solverStates,
        workerWeights,
        start.steps(),
        localKey,
        start.previous());
  }

  /** Queues the broadcasts for destruction; the hand-over, if any, is the caller's to clear. */
  void release(BroadcastReleaser releaser) {
    releaser.release(weights);
    releaser.release(solverStates);
    releaser.release(workerWeights);
  }
}
