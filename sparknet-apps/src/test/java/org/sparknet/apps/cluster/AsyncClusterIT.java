package org.sparknet.apps.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Asynchronous training (Downpour, the parameter server on the driver) on the loopback standalone
 * cluster, with an executor killed (kill -9) in the middle of the run: LeNet on 6,000 Fashion-MNIST
 * images through real Caffe, two workers, tau 10. The killed executor's task dies holding a grant,
 * its connection to the server drops with it, and Spark runs the task again on an executor that is
 * still there or that its Spark worker starts anew.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AsyncClusterIT {
  private static final int WORKERS = 2;
  private static final int TAU = 10;
  private static final int ROUNDS = 30;
  private static final int BATCH = 64; // lenet_train_test.prototxt's training batch
  private static final Duration RUN_TIMEOUT = Duration.ofMinutes(4);
  private static final Pattern LOST_STEPS = Pattern.compile("\"lostSteps\":(\\d+)");

  private TrainingCluster cluster;

  @BeforeAll
  void startCluster() throws Exception {
    cluster = TrainingCluster.shared("AsyncClusterIT");
  }

  @AfterAll
  void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Once round 5 is written, the busiest executor is killed: the run still ends (exit 0) with all
   * its rounds; in each round the steps trained plus the steps the server counted lost make the
   * undisturbed run's budget (the dead task's unpushed grant is lost, at least one step and at most
   * two grants in all, and nothing else); the undisturbed run loses nothing; the net still learns
   * (test accuracy at least 0.78; undisturbed runs reach 0.835 to 0.845). A server that did not
   * count a dead connection's grant as lost failed it: "round 7: examples trained and lost" 640 of
   * 1280.
   */
  @Test
  void anExecutorKilledMidRunCostsOnlyItsUnpushedSteps() throws Exception {
    Path refOut = cluster.dir().resolve("async");
    SparkSubmitProcess ref = submit("async", refOut);
    assertEquals(0, ref.await(RUN_TIMEOUT), ref.output());

    Path out = cluster.dir().resolve("async-kill");
    SparkSubmitProcess driver = submit("async-kill", out);
    TrainingCluster.awaitRounds(driver, out, 5, RUN_TIMEOUT);
    ProcessHandle busy = cluster.busiestExecutor(WORKERS);
    ProcessTree.kill(busy, Duration.ofSeconds(10));
    assertEquals(0, driver.await(RUN_TIMEOUT), driver.output());
    String log = driver.output();
    assertTrue(
        log.contains("ExecutorLostFailure") || log.contains("Lost task"),
        "no task was lost with the killed executor " + busy.pid() + ":\n" + log);
    List<Long> refExamples = TrainingCluster.examplesPerRound(refOut);
    List<Long> examples = TrainingCluster.examplesPerRound(out);
    List<Long> lost = lostStepsPerRound(out);
    assertEquals(ROUNDS, examples.size(), "rounds written");
    for (int r = 0; r < ROUNDS; r++) {
      assertEquals(
          refExamples.get(r),
          examples.get(r) + BATCH * lost.get(r),
          "round " + (r + 1) + ": examples trained and lost, against the undisturbed budget");
    }
    long lostTotal = lost.stream().mapToLong(Long::longValue).sum();
    long lostRef = lostStepsPerRound(refOut).stream().mapToLong(Long::longValue).sum();
    double accuracy = TrainingCluster.accuracy(log);
    double accuracyRef = TrainingCluster.accuracy(ref.output());
    System.out.printf(
        "AsyncClusterIT: lost steps %d (undisturbed %d); accuracy %.4f (undisturbed %.4f)%n",
        lostTotal, lostRef, accuracy, accuracyRef);
    assertEquals(0, lostRef, "the undisturbed run lost steps");
    assertTrue(
        lostTotal >= 1 && lostTotal <= 2L * TAU, "steps lost with the executor: " + lostTotal);
    // Two undisturbed asynchronous runs of this size differ by up to two points (0.8350, 0.8445):
    // the bound is what the net learns, not the undisturbed run's figure.
    assertTrue(accuracy >= 0.78, "accuracy after the loss " + accuracy);
  }

  private SparkSubmitProcess submit(String name, Path out) throws Exception {
    return cluster.submit(
        name, Map.of(), cluster.trainArgs(out, WORKERS, TAU, ROUNDS, "--averaging", "downpour"));
  }

  /** The steps the server counted lost in each round of OUT/metrics.jsonl. */
  private static List<Long> lostStepsPerRound(Path out) throws Exception {
    List<Long> perRound = new ArrayList<>();
    for (String line : Files.readAllLines(out.resolve("metrics.jsonl"))) {
      long n = 0;
      Matcher m = LOST_STEPS.matcher(line);
      while (m.find()) {
        n += Long.parseLong(m.group(1));
      }
      perRound.add(n);
    }
    return perRound;
  }
}
