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
   * The task runs on a new executor (the old one was lost) or on a stale net (a retried or
   * speculative copy of an earlier round): momentum and iteration start over.
   */
  RESTARTED;

  /**
   * @param lastRound the last round the net completed (-1: none)
   * @param builtNow the net was built for this task
   */
  static SolverContinuity of(
      boolean hasSolverState, boolean restored, int lastRound, int round, boolean builtNow) {
    if (!hasSolverState) {
      return STATELESS;
    }
    if (restored) {
      return RESTORED;
    }
    if (lastRound == round - 1) {
      return CONTINUES;
    }
    return builtNow && round == 1 ? FIRST_ROUND : RESTARTED;
  }
}
