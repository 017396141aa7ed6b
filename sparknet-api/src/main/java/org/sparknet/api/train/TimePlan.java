package org.sparknet.api.train;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The last solver step that ends inside a {@link TimeBudget}, planned from the pace measured so far
 * and re-planned after every round.
 *
 * <p>The pace is wall-clock time per step between round ends, so everything the loop does between
 * rounds (tests, snapshots, printing) is paid for. The first round builds the executors' nets and
 * is slower than the rest: until a second round has ended it is the only measure, which plans too
 * few steps, and the next plans catch up. Of the pace over all rounds since the first and the pace
 * over the recent third of that time, the slower one is used, so a machine that slows down is
 * followed within a few rounds and a fast start does not promise steps a slow end cannot keep.
 *
 * <p>The plan keeps back the last test's duration (the final test) and a margin of a fiftieth of
 * the budget, at least a second, for writing the model and stopping. Once a plan has been handed to
 * the workers (their solvers' {@code max_iter}), a smaller one replaces it only when half the
 * margin could not pay for the difference, and a plan whose last step is reached is final: the
 * learning rate of a {@code poly} policy ends at zero on the run's last step.
 */
final class TimePlan {
  /** Rounds the recent pace spans at least. */
  static final int RECENT_ROUNDS = 3;

  private final long deadlineNanos;
  private final long marginNanos;
  private final List<long[]> marks = new ArrayList<>(); // {nanoTime, iteration} at round ends
  private long firstStartNanos = -1;
  private long firstStartIteration;
  private long testNanos;
  private long limit;

  /**
   * @param nowNanos {@link System#nanoTime()} now
   * @param nowWall the wall clock now, to place a budget that began earlier
   */
  TimePlan(TimeBudget budget, long nowNanos, Instant nowWall) {
    long spent =
        budget.start() == null
            ? 0
            : Math.max(0, Duration.between(budget.start(), nowWall).toNanos());
    this.deadlineNanos = nowNanos - spent + budget.length().toNanos();
    this.marginNanos = Math.max(1_000_000_000L, budget.length().toNanos() / 50);
  }

  /** A round begins at {@code iteration}; the first one starts the clock of the pace. */
  void roundStarts(long nowNanos, long iteration) {
    if (firstStartNanos < 0) {
      firstStartNanos = nowNanos;
      firstStartIteration = iteration;
    }
  }

  /** A round ended at {@code iteration}: the plan is made again. */
  void roundEnded(long nowNanos, long iteration) {
    marks.add(new long[] {nowNanos, iteration});
    if (limit > 0 && iteration >= limit) {
      return; // the planned end is reached: the learning rate is at its end, nothing is added
    }
    double perStep = nanosPerStep();
    long left = deadlineNanos - nowNanos - marginNanos - testNanos;
    long more = perStep > 0 && left > 0 ? (long) Math.floor(left / perStep) : 0;
    long planned = iteration + more;
    // The workers' solvers already end their learning rate at the current limit: a plan that
    // shrinks is not taken while half the margin still pays for the current one.
    if (planned < limit && (limit - iteration) * perStep <= left + marginNanos / 2) {
      planned = limit;
    }
    limit = planned;
  }

  /** A test took {@code nanos}: the final test is expected to take as long. */
  void tested(long nanos) {
    testNanos = Math.max(0, nanos);
  }

  /** The planned last iteration, or 0 before a round has ended. */
  long limit() {
    return limit;
  }

  /** Wall-clock nanoseconds a step has cost; 0 when no step has been measured. */
  double nanosPerStep() {
    long[] last = marks.get(marks.size() - 1);
    if (marks.size() == 1) {
      long steps = last[1] - firstStartIteration;
      return steps > 0 ? (double) (last[0] - firstStartNanos) / steps : 0;
    }
    long[] first = marks.get(0);
    double overall = pace(first, last);
    long recentFrom = last[0] - (last[0] - first[0]) / 3;
    int i = marks.size() - 1 - RECENT_ROUNDS;
    while (i > 0 && marks.get(i - 1)[0] >= recentFrom) {
      i--;
    }
    double recent = pace(marks.get(Math.max(0, i)), last);
    return Math.max(overall, recent);
  }

  private static double pace(long[] from, long[] to) {
    long steps = to[1] - from[1];
    return steps > 0 ? (double) (to[0] - from[0]) / steps : 0;
  }

  /** Time left until the budget's end (negative once it has passed). */
  Duration left(long nowNanos) {
    return Duration.ofNanos(deadlineNanos - nowNanos);
  }
}
