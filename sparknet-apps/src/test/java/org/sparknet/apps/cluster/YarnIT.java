package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.sparknet.apps.testing.MiniHdfs;

/**
 * SparkNet on a real YARN ({@link MiniYarn}: a ResourceManager, a NodeManager and HDFS in this JVM,
 * executors in YARN containers): {@code bin/sparknet train --master yarn} in client mode, the way a
 * user on a Hadoop gateway runs it with HADOOP_CONF_DIR set, LeNet on 3,000 Fashion-MNIST images
 * read from HDFS, the model and metrics written to HDFS. To keep CI's YARN time to one training
 * run, that run also loses an executor: its container's JVM is killed (kill -9) in round 2, as
 * ClusterFaultsIT does on the standalone cluster.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class YarnIT {
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(8);
  private static final Charset UTF8 = StandardCharsets.UTF_8;
  private static final int BATCH = 64; // lenet_train_test.prototxt's training batch
  private static final Pattern EXAMPLES = Pattern.compile("\"examples\":(\\d+)");

  /** The trainer's warning when a partition's solver could not continue (RoundResults). */
  private static final String RESTARTED = "restarted (momentum and iteration from zero)";

  private YarnTraining training;
  private MiniHdfs hdfs;

  @BeforeAll
  void cluster() throws Exception {
    training = YarnTraining.shared();
    hdfs = training.hdfs();
  }

  /**
   * Trains through a lost container, and the ResourceManager saw the application run to its end.
   * Broken build seen: with the RM's state read at once after the driver exited, "expected:
   * <FINISHED> but was: <FINISHING>". The other parts (HADOOP_CONF_DIR on bin/sparknet's class
   * path, the apps jar in spark.jars) were not broken on purpose: without them no executor can
   * reach the ResourceManager or load SparkNet's classes, so the run cannot train.
   */
  @Test
  void trainsFromHdfsInYarnContainersThroughAKilledOneAndWritesTheModelToHdfs() throws Exception {
    String out = "/yarn/client-mode";
    String ckpt = out + "/checkpoints";
    SparkSubmitProcess driver =
        training.train("client-mode", out, Map.of(), List.of("--checkpoint", hdfs.uri(ckpt)));
    awaitCheckpoint(driver, ckpt);
    ProcessHandle killed = busiestExecutor();
    ProcessTree.kill(killed, Duration.ofSeconds(10));
    assertEquals(0, driver.await(RUN_TIMEOUT), driver.output());
    String log = driver.output();

    assertTrue(log.contains("spark.executor.memoryOverhead 512m (the net's native memory)"), log);
    assertTrue(hdfs.bytes(out + "/final.caffemodel").length > 431_080 * 4, "LeNet's weights");
    String metrics = new String(hdfs.bytes(out + "/metrics.jsonl"), UTF8);
    long perRound = (long) YarnTraining.WORKERS * YarnTraining.TAU * BATCH;
    for (String line : metrics.lines().toList()) {
      Matcher m = EXAMPLES.matcher(line);
      assertTrue(m.find(), line);
      assertEquals(
          perRound, Long.parseLong(m.group(1)), "examples a round (none lost, none twice)");
    }
    assertEquals(YarnTraining.ROUNDS, metrics.lines().count(), "a metrics line a round");
    assertTrue(log.contains(RESTARTED), "no partition lost its solver to the kill:\n" + log);
    double accuracy = TrainingCluster.accuracy(log);
    System.out.println("YarnIT: client mode, executor " + killed.pid() + " killed, " + accuracy);
    assertTrue(accuracy > 0.5, "LeNet learned too little on YARN (chance is 0.1): " + accuracy);

    RMApp app = training.yarn().awaitFinalState("client-mode", Duration.ofSeconds(60));
    assertEquals(RMAppState.FINISHED, app.getState(), app.getDiagnostics().toString());
    assertEquals(FinalApplicationStatus.SUCCEEDED, app.getFinalApplicationStatus());
  }

  /**
   * A memory overhead too small for the net's native memory is refused before anything reaches
   * YARN. Not broken on purpose here (a full YARN run); MemoryOverheadTest shows the check red.
   */
  @Test
  void refusesATooSmallMemoryOverheadBeforeTraining() throws Exception {
    SparkSubmitProcess driver =
        training.train(
            "small-overhead",
            "/yarn/small-overhead",
            Map.of("spark.executor.memoryOverhead", "200m"),
            List.of());
    assertEquals(2, driver.await(RUN_TIMEOUT), driver.output());
    String log = driver.output();
    assertTrue(log.contains("spark.executor.memoryOverhead=200m (200 MiB) is too small"), log);
    assertTrue(log.contains("spark.executor.memoryOverhead=2"), "the size needed: " + log);
    assertFalse(
        training.yarn().applications().stream()
            .anyMatch(a -> a.getApplicationTags().contains("small-overhead")),
        "an application reached YARN");
  }

  /**
   * Waits until round 1's checkpoint is on HDFS: an HDFS file shows its content only once closed,
   * so metrics.jsonl, written as the run goes, cannot tell the rounds apart; the checkpoints are
   * renamed into place each round.
   */
  private void awaitCheckpoint(SparkSubmitProcess driver, String dir) throws Exception {
    long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
    while (!hdfs.exists(dir + "/round-000001.ckpt")) {
      assertTrue(driver.isAlive(), "driver exited before round 1:\n" + driver.output());
      assertTrue(System.nanoTime() < deadline, "no round 1:\n" + driver.output());
      Thread.sleep(100);
    }
  }

  /** The executor JVM that used the most CPU in the next 300 ms: one running a round's task. */
  private static ProcessHandle busiestExecutor() throws InterruptedException {
    List<ProcessHandle> all = MiniYarn.executors();
    assertTrue(!all.isEmpty(), "no executor JVMs under the NodeManager");
    long[] before = all.stream().mapToLong(TrainingCluster::cpuMillis).toArray();
    Thread.sleep(300);
    int best = 0;
    long bestDelta = -1;
    for (int i = 0; i < all.size(); i++) {
      long d = TrainingCluster.cpuMillis(all.get(i)) - before[i];
      if (d > bestDelta) {
        bestDelta = d;
        best = i;
      }
    }
    return all.get(best);
  }
}
