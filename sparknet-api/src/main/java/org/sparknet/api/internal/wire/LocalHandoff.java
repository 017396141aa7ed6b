package org.sparknet.api.internal.wire;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The weights of a round handed over by reference when Spark runs in local mode, where the tasks
 * run in the driver's JVM: the driver leaves the round's centre here instead of broadcasting it,
 * and each worker leaves its result here instead of serialising it into its task result, which then
 * carries only its report. This is what Spark's own broadcast does with a value in local mode (a
 * task reads the driver's object), extended to the results: an AlexNet-sized round otherwise
 * serialises, copies and deserialises 244 MB several times per worker (BENCHMARKS.md, section 12).
 * On a cluster nothing is left here and the weights travel by broadcast and task results.
 *
 * <p>Entries live for one round: the driver {@link #clear}s them when the round's job is over,
 * whether it succeeded or not. A retried task replaces its partition's entry.
 */
public final class LocalHandoff {
  /** Spark setting (or local property) that turns the hand-over off in local mode: "false". */
  public static final String SETTING = "spark.sparknet.localHandoff";

  private static final Map<String, float[]> CENTRES = new ConcurrentHashMap<>();
  private static final Map<String, PartitionResult> RESULTS = new ConcurrentHashMap<>();

  private LocalHandoff() {}

  /** The key of round {@code round} of trainer {@code trainerId}. */
  public static String key(String trainerId, int round) {
    return trainerId + "/" + round;
  }

  public static void putCentre(String key, float[] centre) {
    CENTRES.put(key, centre);
  }

  /**
   * The centre the driver left for round {@code key}.
   *
   * @throws IllegalStateException when it is not in this JVM (a task on another executor)
   */
  static float[] centre(String key) {
    float[] c = CENTRES.get(key);
    if (c == null) {
      throw new IllegalStateException(
          "The weights of SparkNet round "
              + key
              + " are not in this JVM: they are handed over by reference only in local mode");
    }
    return c;
  }

  /** Leaves {@code result} (with its values) for the driver; returns what the task sends. */
  public static PartitionResult put(String key, PartitionResult result) {
    if (!result.hasValues()) {
      return result;
    }
    RESULTS.put(key + "#" + result.partition(), result);
    return new PartitionResult(result.report(), null, null, result.weight());
  }

  /** The result partition {@code sent.partition()} left, or {@code sent} when it left none. */
  public static PartitionResult take(String key, PartitionResult sent) {
    PartitionResult held = RESULTS.remove(key + "#" + sent.partition());
    return held != null ? held : sent;
  }

  /** Drops everything of round {@code key}. */
  public static void clear(String key) {
    CENTRES.remove(key);
    RESULTS.keySet().removeIf(k -> k.startsWith(key + "#"));
  }
}
