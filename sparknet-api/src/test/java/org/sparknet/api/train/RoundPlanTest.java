package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.internal.wire.RoundSteps;

/**
 * Each round's steps against the run's limit: the last round is shortened to end on max iterations
 * exactly, under fixed and adaptive tau and for timed rounds (a step cap), and a budgeted run sets
 * the solver's max_iter to its last step. Mutations seen red: tau not clamped (the last round ran
 * 50 steps from 290, to 340); timed rounds without a cap (cap 0 at 250); the solver's end not set
 * by a budget (max_iter 0).
 */
class RoundPlanTest {
  private static TrainerConfig.Builder config() {
    return TrainerConfig.builder()
        .setNetDefinition(
            new NetDefinition(
                "java-softmax", "features=4\nclasses=2\nbatch=2\nlr=0.1", null, null, 1L, "cpu"))
        .optMaxIterations(300);
  }

  private static RoundMetrics ended(long iteration, int steps) {
    return RoundMetrics.builder()
        .iteration(iteration)
        .steps(steps)
        .tau(steps)
        .timings(new RoundMetrics.Timings(10, 0, 0, 1, 11, 0))
        .build();
  }

  @Test
  void theLastRoundEndsOnMaxIterations() {
    RoundPlan p = new RoundPlan(config().optTau(50).build());
    assertEquals(RoundSteps.of(50), p.next(0));
    assertEquals(RoundSteps.of(10), p.next(290));
    assertFalse(p.spent(299));
    assertTrue(p.spent(300));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.next(300));
    assertTrue(e.getMessage().contains("max iterations (300)"), e.getMessage());
  }

  @Test
  void adaptiveTauIsClampedToo() {
    RoundPlan p = new RoundPlan(config().optTau(50).optAdaptiveTau(0.05, 1000).build());
    p.observe(ended(50, 50)); // builds the nets: not measured
    p.observe(ended(100, 50)); // 1 ms of overhead, 0.2 ms a step: tau = 1 * 0.95 / (0.05 * 0.2)
    assertEquals(RoundSteps.of(95), p.next(100));
    assertEquals(RoundSteps.of(50), p.next(250));
    assertEquals(RoundSteps.of(1), p.next(299));
  }

  @Test
  void timedRoundsGetACap() {
    RoundPlan p = new RoundPlan(config().optTauSeconds(1).build());
    assertEquals(new RoundSteps(0, 300, 0), p.next(0));
    assertEquals(new RoundSteps(0, 50, 0), p.next(250));
  }

  @Test
  void aBudgetedRunSetsTheSolversEnd() {
    RoundPlan p =
        new RoundPlan(
            config().optTau(50).optTimeBudget(TimeBudget.of(Duration.ofHours(1))).build());
    assertEquals(RoundSteps.of(50), p.next(0), "no plan before the first round has ended");
    p.observe(ended(50, 50));
    // An hour at the pace of a round that took no time: max iterations is the nearer end.
    assertEquals(300, p.limit());
    assertEquals(new RoundSteps(50, 0, 300), p.next(50));
  }
}
