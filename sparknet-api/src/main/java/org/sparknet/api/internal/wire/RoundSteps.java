package org.sparknet.api.internal.wire;

import java.io.Serializable;

/**
 * The solver steps of one round, as the driver plans them: {@code tau} steps on every worker, or
 * (timed rounds, {@code tau == 0}) as many as fit in the round's seconds but at most {@code
 * stepCap}, so that no round carries a worker past the run's last step. {@code maxIterations}, when
 * positive, is the solver's {@code max_iter} for this round: the end of a {@code poly} learning
 * rate, which a run planned by time moves as it re-plans.
 *
 * @param tau steps each worker runs, or 0 when the round is timed
 * @param stepCap the most steps a worker of a timed round runs (0: no cap)
 * @param maxIterations the solver's max_iter to set before the steps (0: leave it)
 */
public record RoundSteps(int tau, long stepCap, long maxIterations) implements Serializable {
  private static final long serialVersionUID = 1L;

  public RoundSteps {
    if (tau < 0 || stepCap < 0 || maxIterations < 0) {
      throw new IllegalArgumentException(
          "Round steps must be >= 0 (tau "
              + tau
              + ", cap "
              + stepCap
              + ", max_iter "
              + maxIterations
              + ")");
    }
  }

  /** {@code tau} steps, the solver's max_iter left as it is. */
  public static RoundSteps of(int tau) {
    return new RoundSteps(tau, 0, 0);
  }

  /** Whether a timed round may run another step after {@code done}. */
  public boolean allowsAnother(long done) {
    return stepCap == 0 || done < stepCap;
  }
}
