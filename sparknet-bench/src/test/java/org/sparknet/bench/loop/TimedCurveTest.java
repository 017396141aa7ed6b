package org.sparknet.bench.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The clock of the time-to-accuracy sections (9 and 21), driven by rounds of known length. */
class TimedCurveTest {
  /** 1.5 s rounds of 100 examples: sums of 1.5 are exact in binary, so the clock is too. */
  private static final TimedCurve.Round ROUND = new TimedCurve.Round(1.5, 100);

  /**
   * Budget 10 s, a test every 4 s: rounds end at 1.5, 3, 4.5, 6, 7.5, 9 and 10.5 s; tests come at
   * 4.5 (4.5 s since 0), 9 (4.5 s since the last) and 10.5 (the budget is spent).
   */
  @Test
  void testsEveryIntervalAndAtTheEndOfTheBudget() {
    AtomicInteger rounds = new AtomicInteger();
    AtomicInteger tests = new AtomicInteger();
    double[] accuracies = {0.5, 0.8, 0.9};
    TimedCurve c =
        TimedCurve.measure(
            new TimedCurve.Settings(10, 4, 0.8),
            () -> {
              rounds.incrementAndGet();
              return ROUND;
            },
            () -> accuracies[tests.getAndIncrement()],
            350);
    assertEquals(7, rounds.get());
    assertEquals(List.of(4.5, 9.0, 10.5), c.accuracy().xs());
    assertEquals(List.of(0.5, 0.8, 0.9), c.accuracy().ys());
    assertEquals(700 / 350.0, c.epochs(), 1e-12);
    assertTrue(c.reachedTarget());
    assertEquals(9.0, c.timeToTarget(), 0);
    assertEquals("**9 s**", c.timeToTargetCell("**%.0f s**"));
  }

  @Test
  void aTargetNotReachedIsNaN() {
    TimedCurve c =
        TimedCurve.measure(new TimedCurve.Settings(3, 1, 0.99), () -> ROUND, () -> 0.5, 100);
    assertEquals(List.of(1.5, 3.0), c.accuracy().xs());
    assertFalse(c.reachedTarget());
    assertTrue(Double.isNaN(c.timeToTarget()));
    assertEquals("not reached", c.timeToTargetCell("%.0f s"));
  }

  @Test
  void settingsRefuseABudgetOrIntervalThatIsNotPositive() {
    assertThrows(IllegalArgumentException.class, () -> new TimedCurve.Settings(0, 1, 0.9));
    assertThrows(IllegalArgumentException.class, () -> new TimedCurve.Settings(10, 0, 0.9));
    assertThrows(IllegalArgumentException.class, () -> new TimedCurve.Settings(Double.NaN, 1, 0.9));
  }
}
