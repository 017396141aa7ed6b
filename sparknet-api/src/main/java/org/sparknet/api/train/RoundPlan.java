package org.sparknet.api.train;

import java.time.Instant;
import java.util.function.Supplier;
import org.sparknet.api.internal.wire.RoundSteps;

/**
 * The steps of each round: tau from the {@link TauSchedule}, shortened so that no round runs past
 * the run's last step, the smaller of {@link TrainerConfig#maxIterations()} and the step a {@link
 * TimeBudget} plans (timed rounds get the same limit as a step cap). A budgeted run also sets the
 * solver's {@code max_iter} to its planned last step every round.
 */
final class RoundPlan {
  private final TauSchedule tau;
  private final double tauSeconds;
  private final long maxIterations;
  private final TimePlan time;

  RoundPlan(TrainerConfig cfg) {
    this.tau = TauSchedule.of(cfg);
    this.tauSeconds = cfg.tauSeconds();
    this.maxIterations = cfg.maxIterations();
    this.time =
        cfg.timeBudget().map(b -> new TimePlan(b, System.nanoTime(), Instant.now())).orElse(null);
  }

  /**
   * The next round's steps, for a run at {@code iteration}.
   *
   * @throws IllegalStateException when the run's steps are spent
   */
  RoundSteps next(long iteration) {
    if (spent(iteration)) {
      throw new IllegalStateException(
          "The run's steps are spent: iteration "
              + iteration
              + " is the "
              + limitText()
              + "; raise the limit, or stop when budgetSpent() says so");
    }
    if (time != null) {
      time.roundStarts(System.nanoTime(), iteration);
    }
    long limit = limit();
    long left = limit > 0 ? limit - iteration : 0;
    long solverEnd = time != null && time.limit() > 0 ? limit : 0;
    int t = tau.next();
    if (t == 0) {
      return new RoundSteps(0, left, solverEnd);
    }
    return new RoundSteps(left > 0 ? (int) Math.min(t, left) : t, 0, solverEnd);
  }

  /** Takes in a completed round: tau adapts, the time plan is made again. */
  void observe(RoundMetrics m) {
    tau.observe(m);
    if (time != null) {
      time.roundEnded(System.nanoTime(), m.iteration());
    }
  }

  /** Runs a test of the current weights, whose duration the final test is expected to take. */
  <T> T timedTest(Supplier<T> test) {
    long t0 = System.nanoTime();
    T out = test.get();
    if (time != null) {
      time.tested(System.nanoTime() - t0);
    }
    return out;
  }

  /** Whether a run at {@code iteration} has reached its last step. */
  boolean spent(long iteration) {
    long limit = limit();
    return limit > 0 && iteration >= limit;
  }

  /**
   * The run's last step: the smaller of max iterations and the time plan's, or 0 while neither is
   * known.
   */
  long limit() {
    long planned = time == null ? 0 : time.limit();
    if (maxIterations > 0 && planned > 0) {
      return Math.min(maxIterations, planned);
    }
    return Math.max(maxIterations, planned);
  }

  private String limitText() {
    long planned = time == null ? 0 : time.limit();
    return planned > 0 && (maxIterations == 0 || planned < maxIterations)
        ? "last step that ends inside the time budget ("
            + RoundProgress.duration(Math.max(0, time.left(System.nanoTime()).toNanos()))
            + " left)"
        : "max iterations (" + maxIterations + ")";
  }

  /** Tau as a progress line shows it: steps (adaptive or not), or seconds. */
  String tauText() {
    int t = tau.next();
    return t > 0 ? t + (tau.adapts() ? " (adaptive)" : "") : tauSeconds + "s";
  }
}
