package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Training on an elastic cluster: {@code spark.dynamicAllocation.enabled=true} with shuffle
 * tracking on the loopback standalone cluster (two Spark workers of one core), LeNet on 6,000
 * Fashion-MNIST images through real Caffe, three SparkNet workers on at most two executors.
 *
 * <p>The run starts with one executor. Its rounds' three tasks back up, so Spark adds a second
 * executor, which takes the tasks still waiting once the locality wait for the cached shards has
 * passed (or, if it joined between rounds, the partitions SparkNet spreads onto it). A round with
 * two executors leaves one of them idle while the other trains the third partition; Spark releases
 * that one after the idle timeout, and the next round's tasks back up on the one left, so Spark
 * adds an executor again. Executors thus come and go between rounds for the whole run, with Spark's
 * default locality wait, as long as a task outlasts the two-second idle timeouts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynamicAllocationIT {
  private static final int WORKERS = 3;
  private static final int ROUNDS = 3;
  private static final int TAU = 300;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);

  /**
   * DAGScheduler's line for a stage of the training rounds' RDD (made in RoundJob, whose call site
   * names the stage); group 1 is the stage.
   */
  private static final Pattern TRAINING_STAGE =
      Pattern.compile("missing tasks from \\w+ (\\d+) \\([^)]*RoundJob\\.java");

  /** TaskSetManager's line for a task started; groups: stage, executor. */
  private static final Pattern STARTED =
      Pattern.compile(
          "Starting task \\d+\\.\\d+ in stage (\\d+)\\.\\d+ \\(TID \\d+\\) \\([^,]+,\\s*"
              + "executor (\\d+), partition \\d+");

  private static final Pattern REQUESTED = Pattern.compile("Requesting \\d+ new executor");
  private static final Pattern RELEASED =
      Pattern.compile("Executors? [\\d,]+ removed due to idle timeout");

  private TrainingCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = TrainingCluster.shared("DynamicAllocationIT");
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Executors added and released during training, partitions trained on added executors, no task
   * failed, every round's examples counted as on fixed executors, and the fixed-executor run's
   * accuracy within half a point. A build whose executors could not build a partition's worker
   * after round 1 (WorkerRegistry refusing) failed it: the partitions moved to added executors
   * failed 4 times there and the elastic run exited 1.
   */
  @Test
  void executorsComeAndGoBetweenRoundsAndTrainingEndsAsOnFixedExecutors() throws Exception {
    String fixed = run("fixed", Map.of(), List.of());
    String elastic = run("elastic", elastic(), List.of());

    assertTrue(REQUESTED.matcher(elastic).find(), "no executor added:\n" + elastic);
    assertTrue(RELEASED.matcher(elastic).find(), "no executor released:\n" + elastic);
    // Spark releases only idle executors, so no task may fail.
    assertFalse(elastic.contains("Lost task"), "a task failed on the elastic cluster:\n" + elastic);
    Set<Integer> executors = trainingExecutors(elastic);
    assertTrue(executors.size() >= 2, "training tasks ran on executors " + executors + " only");
    assertEquals(
        TrainingCluster.examplesPerRound(cluster.dir().resolve("fixed")),
        TrainingCluster.examplesPerRound(cluster.dir().resolve("elastic")),
        "examples per round (a partition's round lost or counted twice)");
    System.out.printf(
        "DynamicAllocationIT: training tasks ran on executors %s; accuracy %.4f (fixed %.4f)%n",
        executors, TrainingCluster.accuracy(elastic), TrainingCluster.accuracy(fixed));
    assertEquals(
        TrainingCluster.accuracy(fixed),
        TrainingCluster.accuracy(elastic),
        0.005,
        "accuracy on an elastic cluster");
  }

  /**
   * {@code --deterministic} under dynamic allocation: exit 2 before any round, naming the setting.
   * Without the check the run trained and its partitions restarted their solvers wherever Spark
   * moved them.
   */
  @Test
  void deterministicTrainingIsRefused() throws Exception {
    Path out = cluster.dir().resolve("deterministic");
    SparkSubmitProcess driver = submit("deterministic", elastic(), List.of("--deterministic"));
    assertEquals(2, driver.await(RUN_TIMEOUT), driver.output());
    assertTrue(driver.output().contains("spark.dynamicAllocation.enabled"), driver.output());
    assertFalse(Files.exists(out.resolve("metrics.jsonl")), "a round ran");
  }

  private static Map<String, String> elastic() {
    Map<String, String> conf = new HashMap<>();
    conf.put("spark.dynamicAllocation.enabled", "true");
    conf.put("spark.dynamicAllocation.shuffleTracking.enabled", "true");
    conf.put("spark.dynamicAllocation.minExecutors", "1");
    conf.put("spark.dynamicAllocation.initialExecutors", "1");
    conf.put("spark.dynamicAllocation.maxExecutors", "2");
    conf.put("spark.dynamicAllocation.schedulerBacklogTimeout", "1s");
    conf.put("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", "1s");
    conf.put("spark.dynamicAllocation.executorIdleTimeout", "2s");
    conf.put("spark.dynamicAllocation.cachedExecutorIdleTimeout", "2s");
    conf.put("spark.executor.cores", "1");
    return conf;
  }

  private String run(String name, Map<String, String> conf, List<String> extra) throws Exception {
    SparkSubmitProcess driver = submit(name, conf, extra);
    assertEquals(0, driver.await(RUN_TIMEOUT), driver.output());
    return driver.output();
  }

  private SparkSubmitProcess submit(String name, Map<String, String> conf, List<String> extra)
      throws IOException {
    Path out = cluster.dir().resolve(name);
    return cluster.submit(
        name, conf, cluster.trainArgs(out, WORKERS, TAU, ROUNDS, extra.toArray(String[]::new)));
  }

  /** The executors that ran tasks of the training rounds' stages. */
  private static Set<Integer> trainingExecutors(String log) {
    Set<String> stages = new HashSet<>();
    Matcher s = TRAINING_STAGE.matcher(log);
    while (s.find()) {
      stages.add(s.group(1));
    }
    assertFalse(stages.isEmpty(), "no training stage in:\n" + log);
    Set<Integer> out = new TreeSet<>();
    Matcher m = STARTED.matcher(log);
    while (m.find()) {
      if (stages.contains(m.group(1))) {
        out.add(Integer.parseInt(m.group(2)));
      }
    }
    return out;
  }
}
