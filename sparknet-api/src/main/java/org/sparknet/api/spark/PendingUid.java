package org.sparknet.api.spark;

import java.util.Objects;

/**
 * Hands a stage's uid to the constructors of Spark's Scala superclasses. Spark's classifier classes
 * create their column params ({@code featuresCol}, {@code thresholds}, ...) while they are
 * constructed, and a param records its parent's {@code uid()} when it is created. A Scala stage
 * sets its uid field before its superclass constructor runs; a Java constructor cannot. So the
 * public constructor parks the uid here in an argument evaluated before {@code super()}, {@code
 * uid()} reads it while the superclass constructor runs, and the private constructor takes it back
 * into its field.
 */
final class PendingUid {
  private static final ThreadLocal<String> PARKED = new ThreadLocal<>();

  private final String uid;

  private PendingUid(String uid) {
    this.uid = uid;
  }

  /** Parks {@code uid} for the constructor about to run on this thread. */
  static PendingUid park(String uid) {
    PARKED.set(Objects.requireNonNull(uid, "uid"));
    return new PendingUid(uid);
  }

  /** The uid parked on this thread (during a superclass constructor). */
  static String parked() {
    return PARKED.get();
  }

  /** Ends the parking and returns the uid, for the stage's field. */
  String take() {
    PARKED.remove();
    return uid;
  }
}
