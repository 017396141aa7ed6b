package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The time budget's plan on a made-up clock (seconds as nanoseconds): the steps that fit in what is
 * left after the final test and the margin, at the pace measured between round ends, the first
 * round (it builds the nets) used alone only until a second round has ended, and the slower of the
 * overall and the recent pace.
 *
 * <p>Mutations seen red: the overall pace alone (a machine that halves its speed kept a plan of
 * 9,091 steps where 6,380 fit); no final test kept back (2,740 for 2,640); a budget that began
 * before the trainer not counted (2,740 for 2,590); the first round's build time kept in the pace
 * after the second round (980 for 2,740); a shrinking plan always taken (2,473 for 2,495); a
 * reached end that grows again (the rate would leave zero: 1,274 for 588).
 */
class TimePlanTest {
  private static final long S = 1_000_000_000L;

  private static TimePlan plan(long seconds) {
    return new TimePlan(TimeBudget.of(Duration.ofSeconds(seconds)), 0, Instant.now());
  }

  @Test
  void plansTheStepsThatFitAtTheMeasuredPace() {
    TimePlan p = plan(60); // margin: max(1 s, 60 / 50 s) = 1.2 s
    p.roundStarts(0, 0);
    assertEquals(0, p.limit(), "no plan before a round has ended");
    p.roundEnded(5 * S, 50); // 5 s for 50 steps: the nets were built in it
    // Round 1 alone: 0.1 s a step, 53.8 s left after the margin: 538 more steps.
    assertEquals(588, p.limit());
    p.roundEnded(6 * S, 100); // 1 s for 50 steps from here on: 52.8 s / 0.02 s = 2,640 more
    assertEquals(2_740, p.limit());
  }

  @Test
  void keepsBackTheFinalTest() {
    TimePlan p = plan(60);
    p.roundStarts(0, 0);
    p.roundEnded(5 * S, 50);
    p.tested(2 * S);
    p.roundEnded(6 * S, 100);
    assertEquals(100 + 2_540, p.limit(), "50.8 s left at 0.02 s a step");
  }

  @Test
  void aBudgetThatBeganEarlierHasLessLeft() {
    TimePlan p =
        new TimePlan(
            TimeBudget.since(Instant.now().minusSeconds(3), Duration.ofSeconds(60)),
            0,
            Instant.now());
    p.roundStarts(0, 0);
    p.roundEnded(5 * S, 50);
    p.roundEnded(6 * S, 100);
    long expected = 100 + 2_490; // 49.8 s left at 0.02 s a step
    assertTrue(Math.abs(p.limit() - expected) <= 1, p.limit() + " vs " + expected);
  }

  @Test
  void followsAMachineThatSlowsDown() {
    TimePlan p = plan(120); // margin 2.4 s
    p.roundStarts(0, 0);
    p.roundEnded(2 * S, 100);
    long t = 2 * S;
    long it = 100;
    for (int r = 0; r < 10; r++) { // 1 s per 100 steps
      t += S;
      it += 100;
      p.roundEnded(t, it);
    }
    assertEquals(1_100 + 10_560, p.limit(), "105.6 s left at 0.01 s a step");
    for (int r = 0; r < 4; r++) { // now 2 s per 100 steps
      t += 2 * S;
      it += 100;
      p.roundEnded(t, it);
    }
    // The last third of the time since round 1 is all slow rounds: 97.6 s left at 0.02 s a step
    // (the pace since round 1, 0.0129 s, would promise 7,591).
    assertEquals(1_500 + 4_880, p.limit());
  }

  @Test
  void aPlanHandedToTheWorkersIsKeptWhileTheMarginPaysForIt() {
    TimePlan p = plan(60); // margin 1.2 s
    p.roundStarts(0, 0);
    p.roundEnded(5 * S, 50);
    p.roundEnded(6 * S, 100);
    assertEquals(2_740, p.limit());
    // A slower round (1.2 s for 50 steps): 0.022 s a step since round 1, 51.6 s left: 2,345 more
    // from 150, 245 fewer than the plan, more than half the margin (0.6 s) pays for.
    p.roundEnded(7_200_000_000L, 150);
    assertEquals(150 + 2_345, p.limit());
    // Slightly slower again (1.13 s): the new plan (2,473) is 22 steps short of the current one,
    // which half the margin pays for, so the current one stays.
    p.roundEnded(8_330_000_000L, 200);
    assertEquals(2_495, p.limit());
  }

  @Test
  void aReachedEndIsFinal() {
    TimePlan p = plan(60);
    p.roundStarts(0, 0);
    p.roundEnded(50 * S, 500); // 0.1 s a step: 8.8 s left, 88 more
    assertEquals(588, p.limit());
    p.roundEnded(51 * S, 588); // much faster than planned, but the learning rate is at its end
    assertEquals(588, p.limit());
  }

  @Test
  void aSpentBudgetPlansNoMoreSteps() {
    TimePlan p = plan(10);
    p.roundStarts(0, 0);
    p.roundEnded(12 * S, 40);
    assertEquals(40, p.limit());
    assertTrue(p.left(12 * S).isNegative());
  }

  @Test
  void durationsAsUsersWriteThem() {
    assertEquals(Duration.ofSeconds(90), TimeBudget.parseDuration("90s", "x"));
    assertEquals(Duration.ofSeconds(90), TimeBudget.parseDuration("90", "x"));
    assertEquals(Duration.ofMinutes(5), TimeBudget.parseDuration("5m", "x"));
    assertEquals(Duration.ofMinutes(90), TimeBudget.parseDuration("1h30m", "x"));
    assertEquals(Duration.ofSeconds(150), TimeBudget.parseDuration("2.5m", "x"));
    assertEquals(Duration.ofMillis(500), TimeBudget.parseDuration("500ms", "x"));
    for (String bad : new String[] {"", "5 minutes", "m5", "0s", "-3s", "5x", "1h30"}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> TimeBudget.parseDuration(bad, "--time-budget"),
              bad);
      assertTrue(e.getMessage().startsWith("--time-budget must be a positive duration"), bad);
    }
  }
}
