package org.sparknet.api.internal.worker;

/**
 * Whether a worker's solver (momentum history and iteration, and so the learning-rate schedule)
 * carries on from the round before. Only weights are averaged; each worker is one continuing
 * solver, so a round that runs on any net other than the one that ran the previous round starts its
 * solver over.
 */
public enum SolverContinuity {
  /** The engine keeps no solver state: there is nothing to carry on. */
  STATELESS,
  /** The net ran the previous round. */
  CONTINUES,
  /** The net was built for the first round. */
  FIRST_ROUND,
  /** The solver state was just restored from a checkpoint. */
  RESTORED,
  /**
   * The task runs on a new executor (the old one was lost: momentum and iteration start over) or on
   * a stale net (one that missed a round, or whose last round lost to a speculative copy or to its
   * original elsewhere): its momentum and iteration are not the accepted history's.
   */
  RESTARTED;

  /**
   * @param continues the net completed the previous round, and the driver took its result (see
   *     {@link org.sparknet.api.internal.wire.WorkerLineages})
   * @param builtNow the net was built for this task
   */
  static SolverContinuity of(
      boolean hasSolverState, boolean restored, boolean continues, int round, boolean builtNow) {
    if (!hasSolverState) {
      return STATELESS;
    }
    if (restored) {
      return RESTORED;
    }
    if (continues) {
      return CONTINUES;
    }
    return builtNow && round == 1 ? FIRST_ROUND : RESTARTED;
  }
}
