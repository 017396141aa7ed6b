package org.sparknet.api.internal;

import java.io.Serializable;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.SolverState;

/**
 * What changes from round to round for the workers: the round number, the weights to start from
 * (broadcast once per round), each partition's position in its data, the token of the trainer's
 * weights (it changes when they are replaced from outside the loop, so elastic workers restart from
 * them) and, in the first round after a resume, the solver states to restore.
 *
 * @param solverStates null except in the first round after a resume with solver states
 */
public record RoundOrders(
    int round,
    Broadcast<float[]> weights,
    long[] positions,
    long weightsToken,
    Broadcast<SolverState[]> solverStates,
    int tau)
    implements Serializable {
  private static final long serialVersionUID = 1L;

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
}
