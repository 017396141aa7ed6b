package org.sparknet.api.train;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * Each round's tau: fixed, or adaptive. Adaptive tau keeps the share of a round spent outside the
 * workers' solver steps (broadcast, aggregation, scheduling: {@code o}) at or below {@code
 * maxOverhead} ({@code P}): with {@code c} the slowest worker's compute per step, a round of tau
 * steps spends {@code o / (o + tau c)} on overhead, so the next round runs
 *
 * <pre>
 *   tau = ceil(o (1 - P) / (P c)),  clamped to [1, tauMax],
 * </pre>
 *
 * where {@code o} and {@code c} are the medians of the last {@value #WINDOW} rounds measured: a
 * slower worker or a bigger batch (larger {@code c}) lowers tau, costlier rounds (larger {@code o})
 * raise it, within {@value #WINDOW} rounds, and one round disturbed by a garbage collection does
 * not move it. The first round this schedule sees is not measured: it builds the executors' nets.
 * Timed rounds ({@code tauSeconds}) have no tau. A trainer resumed from a checkpoint starts a new
 * schedule (checkpoints do not hold it).
 */
final class TauSchedule {
  /** Rounds whose medians feed the next tau. */
  static final int WINDOW = 3;

  private final double maxOverhead;
  private final int tauMax;
  private final Deque<double[]> recent = new ArrayDeque<>();
  private int tau;
  private boolean firstSeen;

  private TauSchedule(int first, double maxOverhead, int tauMax) {
    this.tau = first;
    this.maxOverhead = maxOverhead;
    this.tauMax = tauMax;
  }

  /** Always {@code tau} (0: timed rounds). */
  static TauSchedule fixed(int tau) {
    return new TauSchedule(tau, 0, tau);
  }

  /** Starts at {@code min(first, tauMax)} and adapts after every round. */
  static TauSchedule adaptive(int first, double maxOverhead, int tauMax) {
    return new TauSchedule(Math.min(first, tauMax), maxOverhead, tauMax);
  }

  static TauSchedule of(TrainerConfig cfg) {
    return cfg.adaptiveTau()
        ? adaptive(cfg.tau(), cfg.maxOverhead(), cfg.tauMax())
        : fixed(cfg.tau());
  }

  boolean adapts() {
    return maxOverhead > 0;
  }

  /** The next round's tau (0 for timed rounds). */
  int next() {
    return tau;
  }

  /** Takes in a completed round and chooses the next tau. */
  void observe(RoundMetrics m) {
    if (!adapts() || m.steps() <= 0) {
      return;
    }
    if (!firstSeen) {
      firstSeen = true;
      return;
    }
    double overhead = Math.max(0, m.wallMillis() - m.computeMillis());
    double perStep = (double) m.computeMillis() / m.steps();
    recent.addLast(new double[] {overhead, perStep});
    if (recent.size() > WINDOW) {
      recent.removeFirst();
    }
    tau = choose(median(0), median(1), maxOverhead, tauMax);
  }

  /**
   * The smallest tau whose overhead share is at most {@code p} for per-round overhead {@code o} and
   * compute per step {@code c} (milliseconds), in [1, tauMax]. A step too short to measure ({@code
   * c} rounds to 0 ms) gives tauMax.
   */
  static int choose(double o, double c, double p, int tauMax) {
    if (!(c > 0)) {
      return tauMax;
    }
    double t = Math.ceil(o * (1 - p) / (p * c));
    return (int) Math.max(1, Math.min(tauMax, t));
  }

  private double median(int field) {
    List<Double> xs = new ArrayList<>();
    for (double[] r : recent) {
      xs.add(r[field]);
    }
    Collections.sort(xs);
    int n = xs.size();
    return n % 2 == 1 ? xs.get(n / 2) : (xs.get(n / 2 - 1) + xs.get(n / 2)) / 2;
  }
}
