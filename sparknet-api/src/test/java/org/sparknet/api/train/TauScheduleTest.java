package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Adaptive tau's rule on made-up rounds: the smallest tau whose overhead share is at most P, from
 * the medians of the last three rounds, within [1, tauMax]; the first round (the nets are built in
 * it) is not measured. Mutations seen red: the rule without its (1 - P) factor (100 for 95), a
 * window that keeps its first three rounds (95 where the slower worker gives 48), a fixed schedule
 * that adapts (timed rounds got tau 1).
 */
class TauScheduleTest {

  /** A round of {@code tau} steps of {@code perStep} ms each and {@code overhead} ms besides. */
  private static RoundMetrics round(int tau, double perStep, long overhead) {
    long compute = Math.round(tau * perStep);
    return RoundMetrics.builder()
        .steps(tau)
        .tau(tau)
        .timings(new RoundMetrics.Timings(compute, 0, 0, overhead, compute + overhead, 0))
        .build();
  }

  private static double share(int tau, double perStep, long overhead) {
    return overhead / (overhead + tau * perStep);
  }

  @Test
  void chooseGivesTheSmallestTauWithinTheOverheadBudget() {
    // o = 100 ms, c = 20 ms, P = 5 %: tau >= 100 * 0.95 / (0.05 * 20) = 95
    assertEquals(95, TauSchedule.choose(100, 20, 0.05, 1000));
    assertTrue(share(95, 20, 100) <= 0.05 && share(94, 20, 100) > 0.05);
    assertEquals(60, TauSchedule.choose(100, 20, 0.05, 60), "bounded by tauMax");
    assertEquals(1, TauSchedule.choose(1, 500, 0.05, 60), "at least one step");
    assertEquals(60, TauSchedule.choose(30, 0, 0.05, 60), "a step too short to measure");
  }

  @Test
  void followsASlowerWorkerAndACostlierRound() {
    TauSchedule s = TauSchedule.adaptive(50, 0.05, 400);
    assertEquals(50, s.next());
    s.observe(round(50, 20, 5000)); // builds the nets: not measured
    assertEquals(50, s.next());
    s.observe(round(50, 20, 100));
    assertEquals(95, s.next());
    s.observe(round(95, 20, 100));
    s.observe(round(95, 20, 100));
    assertEquals(95, s.next());
    // A worker twice as slow: compute per step 40 ms; tau halves once two of three rounds show it.
    s.observe(round(95, 40, 100));
    assertEquals(95, s.next(), "one round is not enough");
    s.observe(round(95, 40, 100));
    assertEquals(48, s.next());
    // The round's overhead grows fourfold: tau follows.
    s.observe(round(48, 40, 400));
    s.observe(round(48, 40, 400));
    assertEquals(190, s.next());
    s.observe(round(190, 40, 400));
    assertTrue(share(s.next(), 40, 400) <= 0.05);
    assertEquals(190, s.next());
  }

  @Test
  void fixedTauAndTimedRoundsDoNotAdapt() {
    TauSchedule fixed = TauSchedule.fixed(7);
    fixed.observe(round(7, 20, 100));
    fixed.observe(round(7, 20, 1000));
    assertEquals(7, fixed.next());
    TauSchedule timed = TauSchedule.fixed(0);
    for (int r = 0; r < 3; r++) {
      timed.observe(round(3, 20, 100));
    }
    assertEquals(0, timed.next());
    assertEquals(20, TauSchedule.adaptive(50, 0.05, 20).next(), "the first tau within tauMax");
  }
}
