package org.sparknet.api.train;

import java.util.List;

/** Decides after each round whether training stops. */
@FunctionalInterface
public interface StopCondition {
  /**
   * @param last the round just completed
   * @param history every round completed by this call of {@code train}, {@code last} included
   */
  boolean shouldStop(RoundMetrics last, List<RoundMetrics> history);

  /** Stops after {@code rounds} rounds of this call. */
  static StopCondition afterRounds(int rounds) {
    return (last, history) -> history.size() >= rounds;
  }
}
