package org.sparknet.api.internal.worker;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Tokens that name a worker's solver history. Two workers whose histories began alike (a new net in
 * round 1, or a checkpoint's state restored in the same round) and ran the same rounds with the
 * same steps hold the same state on the CPU, so they get the same token; a history that began on a
 * stale or rebuilt net gets a random one, which no other worker shares.
 */
final class SolverLineage {
  private static final long FIRST_ROUND = 0x1F2E3D4C5B6A7988L;
  private static final long RESTORED = 0x5E57_0BED_0000_0000L;

  private SolverLineage() {}

  /**
   * The token a history begins with in round {@code round}: the solver state was just restored, or
   * the net was built for this task.
   */
  static long begin(boolean restored, boolean builtNow, int round) {
    if (restored) {
      return mix(RESTORED, round);
    }
    return builtNow && round == 1 ? FIRST_ROUND : ThreadLocalRandom.current().nextLong();
  }

  /** The token after a round of {@code steps} steps on the history {@code before}; never 0. */
  static long next(long before, int round, long steps) {
    long t = mix(mix(before, round), steps);
    return t != 0 ? t : 1;
  }

  /** SplitMix64's finaliser over the two values. */
  private static long mix(long a, long b) {
    long z = a + 0x9E3779B97F4A7C15L * (b + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
