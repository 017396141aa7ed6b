package org.sparknet.api;

import java.io.Serializable;
import java.util.Objects;

/**
 * A heap copy of a solver's state beyond the weights: its iteration (which drives the learning-rate
 * policy) and its history arrays (SGD momentum; the running averages of the adaptive solvers),
 * keyed like the weights; solvers with more than one history array per parameter add keys {@code
 * layer#1}, {@code layer#2}, ... Together with the weights it is what an exact resume needs.
 * Engines define the history's layout; a state goes back only into a net of the same definition.
 *
 * @param iteration the solver iterations run so far (>= 0)
 * @param history the history arrays; empty for a solver without history
 */
public record SolverState(long iteration, WeightCollection history) implements Serializable {
  private static final long serialVersionUID = 1L;

  public SolverState {
    Objects.requireNonNull(history, "history");
    if (iteration < 0) {
      throw new IllegalArgumentException("iteration must be >= 0 but was " + iteration);
    }
  }

  /** A deep copy (the history arrays are copied). */
  public SolverState copy() {
    return new SolverState(iteration, history.copy());
  }

  @Override
  public String toString() {
    return "SolverState{iteration "
        + iteration
        + ", "
        + history.numLayers()
        + " history layers, "
        + history.numFloats()
        + " floats}";
  }
}
