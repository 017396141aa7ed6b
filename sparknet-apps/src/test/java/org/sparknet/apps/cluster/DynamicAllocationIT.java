package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.sparknet.apps.testing.CliFixtures;

/**
 * Training on an elastic cluster: {@code spark.dynamicAllocation.enabled=true} with shuffle
 * tracking on the loopback standalone cluster (two workers of one core), LeNet on 6,000
 * Fashion-MNIST images through real Caffe, two SparkNet workers.
 *
 * <p>The run starts with one executor, so the first rounds' two tasks back up and Spark adds a
 * second executor between rounds. Partition 1's cached shard stays on the first executor; each
 * round its task waits out the locality wait there before it runs on the added executor, which
 * meanwhile sits idle past {@code executorIdleTimeout} and is released, and added again when the
 * tasks back up: executors come and go between rounds for the whole run. A task on an executor
 * without the partition's worker builds the worker anew and reads the cached shard from the
 * executor that holds it. The run must end with the fixed-executor run's accuracy within half a
 * point, with executors added and removed while it trained and partitions trained on an added one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DynamicAllocationIT {
  private static final int WORKERS = 2;
  private static final int ROUNDS = 8;
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);
  private static final Pattern ACCURACY = Pattern.compile("Final test: accuracy (\\d+\\.\\d+)");
  private static final Pattern STARTED =
      Pattern.compile(
          "Starting task \\d+\\.\\d+ in stage \\d+\\.\\d+ \\(TID \\d+\\) \\([^,]+,\\s*"
              + "executor (\\d+), partition (\\d+)");
  private static final Pattern REQUESTED = Pattern.compile("Requesting \\d+ new executor");
  private static final Pattern REMOVED =
      Pattern.compile("(?:Removing executor \\d+|Executor \\d+ is removed|Executors? .* removed)");

  private StandaloneCluster cluster;
  private Path jar;
  private Path data;
  private Path solver;
  private Path log4j;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = StandaloneCluster.start(WORKERS, "1g");
    jar = StandaloneCluster.shadedJar();
    data = cluster.dir().resolve("data");
    CliFixtures.fashionMnistSubset(data, 6000, 2000);
    solver = CliFixtures.caffeLeNet(cluster.dir().resolve("caffe"));
    log4j = cluster.dir().resolve("driver-log4j2.properties");
    Files.writeString(
        log4j,
        Files.readString(StandaloneCluster.TARGET.resolve("launcher/log4j2.properties"))
            + "\nlogger.tsm.name = org.apache.spark.scheduler.TaskSetManager\n"
            + "logger.tsm.level = info\n"
            + "logger.eam.name = org.apache.spark.ExecutorAllocationManager\n"
            + "logger.eam.level = info\n");
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Executors added and released during training, training tasks on added executors, no task
   * failed, and the fixed-executor run's accuracy within half a point. Which executor runs which
   * partition in which round is Spark's choice and differs between runs (seen: tasks on executors 0
   * to 3, three of them added and released in turn, accuracy 0.8365 on both runs; or on 0 and 1,
   * 0.8380 against 0.8365). A broken build whose workers could not be built on an executor after
   * round 1 (WorkerRegistry refusing) gave "tasks ran on executors [0] only": its failed tasks were
   * retried on the first executor, which held both partitions' workers.
   */
  @Test
  void executorsComeAndGoBetweenRoundsAndTrainingEndsAsOnFixedExecutors() throws Exception {
    String fixed = run("fixed", Map.of());
    Map<String, String> elastic = new HashMap<>();
    elastic.put("spark.dynamicAllocation.enabled", "true");
    elastic.put("spark.dynamicAllocation.shuffleTracking.enabled", "true");
    elastic.put("spark.dynamicAllocation.minExecutors", "1");
    elastic.put("spark.dynamicAllocation.initialExecutors", "1");
    elastic.put("spark.dynamicAllocation.maxExecutors", "2");
    elastic.put("spark.dynamicAllocation.schedulerBacklogTimeout", "1s");
    elastic.put("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", "1s");
    elastic.put("spark.dynamicAllocation.executorIdleTimeout", "2s");
    elastic.put("spark.dynamicAllocation.cachedExecutorIdleTimeout", "2s");
    elastic.put("spark.executor.cores", "1");
    String dynamic = run("dynamic", elastic);

    assertTrue(REQUESTED.matcher(dynamic).find(), "no executor added:\n" + dynamic);
    assertTrue(REMOVED.matcher(dynamic).find(), "no executor released:\n" + dynamic);
    // Executors are released only when idle, so no task may fail: a build whose workers could not
    // start on an added executor still finished, its failed tasks retried where the worker lived.
    assertTrue(!dynamic.contains("Lost task"), "a task failed on the elastic cluster:\n" + dynamic);
    TreeSet<Integer> executors = new TreeSet<>();
    Matcher m = STARTED.matcher(dynamic);
    while (m.find()) {
      executors.add(Integer.parseInt(m.group(1)));
    }
    assertTrue(executors.size() >= 2, "tasks ran on executors " + executors + " only");
    System.out.printf(
        "DynamicAllocationIT: tasks ran on executors %s; accuracy %.4f (fixed %.4f)%n",
        executors, accuracy(dynamic), accuracy(fixed));
    assertEquals(accuracy(fixed), accuracy(dynamic), 0.005, "accuracy on an elastic cluster");
  }

  private String run(String name, Map<String, String> conf) throws Exception {
    Path out = cluster.dir().resolve(name);
    List<String> args =
        List.of(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--test",
            data.resolve("t10k-images-idx3-ubyte").toString(),
            "--format",
            "idx",
            "--workers",
            Integer.toString(WORKERS),
            "--tau",
            "40",
            "--rounds",
            Integer.toString(ROUNDS),
            "--output",
            out.toString());
    SparkSubmitProcess driver = cluster.submit(name, jar, conf, log4j, args);
    assertEquals(0, driver.await(RUN_TIMEOUT), driver.output());
    return driver.output();
  }

  private static double accuracy(String log) {
    Matcher m = ACCURACY.matcher(log);
    assertTrue(m.find(), "no final accuracy in:\n" + log);
    return Double.parseDouble(m.group(1));
  }
}
