package org.sparknet.api.internal.worker;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The weights an all-reduce round ended with, kept on each executor for the next round's tasks: in
 * an all-reduce run every executor computes the next weights itself, so the driver's broadcast of
 * them is read only by an executor that lacks them (the first round, a new executor after a loss, a
 * retried round, weights replaced from outside the loop). One entry per trainer, the newest
 * round's; forgotten when the trainer's workers are released.
 */
final class RingCentres {
  private record Entry(int round, long token, float[] weights) {}

  private static final ConcurrentHashMap<String, Entry> BY_TRAINER = new ConcurrentHashMap<>();

  private RingCentres() {}

  /** The weights trainer {@code trainerId}'s round {@code round} ended with, or null. */
  static float[] find(String trainerId, int round, long token) {
    Entry e = BY_TRAINER.get(trainerId);
    return e != null && e.round() == round && e.token() == token ? e.weights() : null;
  }

  /** Keeps {@code weights} as round {@code round}'s result unless a newer round's is kept. */
  static void put(String trainerId, int round, long token, float[] weights) {
    BY_TRAINER.merge(
        trainerId,
        new Entry(round, token, weights),
        (old, neu) -> neu.round() >= old.round() ? neu : old);
  }

  /** Forgets trainer {@code trainerId}'s weights in this JVM. */
  static void forget(String trainerId) {
    BY_TRAINER.remove(trainerId);
  }

  /** Trainers whose weights this JVM holds (the leak checks count them). */
  public static int held() {
    return BY_TRAINER.size();
  }
}
