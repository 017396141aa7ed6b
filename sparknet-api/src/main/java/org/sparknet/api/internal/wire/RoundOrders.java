package org.sparknet.api.internal.wire;

import java.io.Serializable;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.SolverState;

/**
 * What changes from round to round for the workers: the round number, the weights to start from
 * (broadcast once per round, or handed over in this JVM in local mode), each partition's position
 * in its data, the token of the trainer's weights (it changes when they are replaced from outside
 * the loop, so elastic workers restart from them), the round's steps (tau changes from round to
 * round when it adapts, and the last round of a budget is shortened) and, in the first round after
 * a resume, the solver states and the workers' own weights to restore.
 *
 * @param weights the broadcast centre, or null when it is handed over in this JVM ({@code
 *     localKey})
 * @param solverStates null except in the first round after a resume with solver states
 * @param workerWeights null except in the first round after a resume with the workers' own weights
 * @param steps the solver steps each worker runs this round
 * @param localKey the round's key in {@link LocalHandoff} (local mode), or null on a cluster
 * @param previous the solver histories of the results the driver took from the round before
 */
public record RoundOrders(
    int round,
    Broadcast<float[]> weights,
    long[] positions,
    long weightsToken,
    Broadcast<SolverState[]> solverStates,
    Broadcast<float[][]> workerWeights,
    RoundSteps steps,
    String localKey,
    WorkerLineages previous)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public RoundOrders {
    previous = previous != null ? previous : WorkerLineages.none(round - 1);
  }

  /** The weights the round starts from: broadcast, or handed over in this JVM. */
  public float[] centre() {
    return localKey != null ? LocalHandoff.centre(localKey) : weights.value();
  }

  /** Where partition {@code p} starts in its data this round. */
  public long positionOf(int partition) {
    return positions[partition];
  }

  /** The solver state to restore on partition {@code p}, or null. */
  public SolverState solverStateOf(int partition) {
    if (solverStates == null) {
      return null;
    }
    SolverState[] all = solverStates.value();
    return partition < all.length ? all[partition] : null;
  }

  /** The weights partition {@code p}'s worker resumes with, or null (it starts from the centre). */
  public float[] workerWeightsOf(int partition) {
    if (workerWeights == null) {
      return null;
    }
    float[][] all = workerWeights.value();
    return partition < all.length ? all[partition] : null;
  }
}
