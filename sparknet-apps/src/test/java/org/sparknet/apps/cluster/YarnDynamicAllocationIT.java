package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.junit.jupiter.api.Test;

/**
 * Training on YARN with dynamic allocation ({@code spark.dynamicAllocation.enabled=true} and
 * shuffle tracking, no external shuffle service): {@code bin/sparknet train --master yarn} on the
 * shared {@link MiniYarn}, three SparkNet workers on at most two executors of one core, as
 * DynamicAllocationIT runs them on the standalone cluster.
 *
 * <p>Two executors start; a round's third partition leaves one of them idle, Spark hands it back to
 * YARN after the one-second idle timeout, and the next round's tasks back up on the executor left,
 * so Spark asks YARN for another container. The ResourceManager's scheduler shows containers handed
 * back and new ones granted, never more than the maximum at once; the trainer's warning that a
 * partition's solver restarted shows that a partition moved off an executor Spark released.
 *
 * <p>Broken build seen: with {@code spark.dynamicAllocation.cachedExecutorIdleTimeout} left at its
 * default (infinite), "no partition moved off a released executor": Spark released one idle
 * executor before the first round, when it held no data yet (so the containers alone showed 3), and
 * never one that held training partitions.
 */
class YarnDynamicAllocationIT {
  private static final int WORKERS = 3;
  private static final int MAX_EXECUTORS = 2;
  private static final int TAU = 60;
  private static final int BATCH = 64; // lenet_train_test.prototxt's training batch
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(6);
  private static final String TAG = "dynamic-allocation";
  private static final Pattern EXAMPLES = Pattern.compile("\"examples\":(\\d+)");

  /** The trainer's warning when a partition's solver could not continue (RoundResults). */
  private static final String RESTARTED = "restarted (momentum and iteration from zero)";

  @Test
  void executorsComeAndGoAndEveryRoundTrainsEachPartitionOnce() throws Exception {
    YarnTraining training = YarnTraining.shared();
    MiniYarn yarn = training.yarn();
    String out = "/yarn/" + TAG;
    SparkSubmitProcess driver =
        training.train(TAG, training.trainArgs(out, WORKERS, TAU), elastic());
    Set<String> executors = new TreeSet<>();
    int mostAtOnce = 0;
    long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
    while (driver.isAlive() && System.nanoTime() < deadline) {
      // All but the ApplicationMaster's container (the attempt's first, _000001).
      Set<String> live = new TreeSet<>(yarn.liveContainers(TAG).keySet());
      live.removeIf(id -> id.endsWith("_000001"));
      executors.addAll(live);
      mostAtOnce = Math.max(mostAtOnce, live.size());
      Thread.sleep(100);
    }
    assertEquals(0, driver.await(Duration.ofSeconds(30)), driver.output());
    String log = driver.output();
    System.out.println(
        "YarnDynamicAllocationIT: executor containers "
            + executors
            + ", at most "
            + mostAtOnce
            + " at once, accuracy "
            + TrainingCluster.accuracy(log));

    assertTrue(mostAtOnce <= MAX_EXECUTORS, "more executors at once than the maximum");
    assertTrue(
        executors.size() > mostAtOnce,
        "no executor went and came: containers " + executors + ", " + mostAtOnce + " at once");
    // Spark releases only idle executors: no task failed, no executor was lost.
    assertFalse(log.contains("Lost task"), log);
    assertFalse(log.contains("Lost executor"), log);
    assertTrue(log.contains(RESTARTED), "no partition moved off a released executor:\n" + log);
    String metrics =
        new String(training.hdfs().bytes(out + "/metrics.jsonl"), StandardCharsets.UTF_8);
    assertEquals(YarnTraining.ROUNDS, metrics.lines().count(), "a metrics line a round");
    for (String line : metrics.lines().toList()) {
      Matcher m = EXAMPLES.matcher(line);
      assertTrue(m.find(), line);
      assertEquals(
          (long) WORKERS * TAU * BATCH,
          Long.parseLong(m.group(1)),
          "examples a round (a partition's round lost or counted twice)");
    }
    double accuracy = TrainingCluster.accuracy(log);
    assertTrue(accuracy > 0.5, "LeNet learned too little on YARN (chance is 0.1): " + accuracy);
    RMApp app = yarn.awaitFinalState(TAG, Duration.ofSeconds(60));
    assertEquals(RMAppState.FINISHED, app.getState(), app.getDiagnostics().toString());
    assertEquals(FinalApplicationStatus.SUCCEEDED, app.getFinalApplicationStatus());
  }

  /**
   * docs/cluster-yarn.md's dynamic allocation settings, with timeouts short enough for rounds of a
   * few seconds; {@code spark.executor.instances} unset, as Spark's count is then its own.
   */
  private static Map<String, String> elastic() {
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.executor.instances", null);
    conf.put("spark.dynamicAllocation.enabled", "true");
    conf.put("spark.dynamicAllocation.shuffleTracking.enabled", "true");
    conf.put("spark.dynamicAllocation.minExecutors", "1");
    conf.put("spark.dynamicAllocation.initialExecutors", Integer.toString(MAX_EXECUTORS));
    conf.put("spark.dynamicAllocation.maxExecutors", Integer.toString(MAX_EXECUTORS));
    conf.put("spark.dynamicAllocation.schedulerBacklogTimeout", "1s");
    conf.put("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", "1s");
    conf.put("spark.dynamicAllocation.executorIdleTimeout", "1s");
    conf.put("spark.dynamicAllocation.cachedExecutorIdleTimeout", "1s");
    return conf;
  }
}
