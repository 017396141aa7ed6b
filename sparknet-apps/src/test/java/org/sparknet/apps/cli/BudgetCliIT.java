package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;

/**
 * {@code train}'s budgets with Caffe's LeNet on Fashion-MNIST: max_iter ends the run exactly under
 * adaptive tau and timed rounds, a 30-second time budget ends the command inside it with the poly
 * learning rate at zero at the last step, and a place the run cannot write stops it with exit 2
 * before Spark starts, so before any solver step.
 */
class BudgetCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir static Path tmp;
  private static Path data;

  @BeforeAll
  static void data() throws Exception {
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 2000, 500);
  }

  /** Caffe's LeNet solver, its "inv" policy made "poly" of power 1 when asked. */
  private static Path solver(String name, boolean poly) throws Exception {
    Path solver = CliFixtures.caffeLeNet(tmp.resolve(name));
    if (poly) {
      String text =
          Files.readString(solver)
              .replace("lr_policy: \"inv\"", "lr_policy: \"poly\"")
              .replace("power: 0.75", "power: 1");
      Files.writeString(solver, text);
    }
    return solver;
  }

  private static Result train(Path solver, String output, String... more) {
    List<String> a = new ArrayList<>(List.of("--workers", "2", "--output", output));
    a.addAll(Arrays.asList(more));
    return CliFixtures.run(CliFixtures.trainArgs(solver, data, a.toArray(new String[0])));
  }

  private static JsonNode lastRound(Path output) throws Exception {
    List<String> rows = Files.readAllLines(output.resolve("metrics.jsonl"));
    return JSON.readTree(rows.get(rows.size() - 1));
  }

  /**
   * {@code --tau auto} adapts tau after its first two rounds of 50, and timed rounds of 3 seconds
   * run tens of LeNet's steps, more than are left near the end (so a round without the cap lands on
   * the last step only by chance): both end on iteration 130, which the first two rounds of 50 do
   * not reach and which is no multiple of them. Mutations: tau not clamped (RoundPlan.next
   * returning the schedule's tau) ended at iteration 142; timed rounds without a cap
   * (RoundSteps.allowsAnother always true) at 135.
   */
  @ParameterizedTest
  @ValueSource(strings = {"--tau=auto", "--tau-seconds=3"})
  void maxIterEndsTheRunExactly(String tau) throws Exception {
    Path out = tmp.resolve("exact" + tau.replaceAll("\\W", ""));
    Result r =
        train(solver("exact" + tau.length(), false), out.toString(), tau, "--max-iter", "130");
    assertEquals(0, r.exit(), r.toString());
    JsonNode last = lastRound(out);
    assertEquals(130, last.path("iteration").asLong(), r.out());
  }

  /**
   * A 30-second budget: the command (Spark's start and the data's loading included) returns within
   * it plus 3 s (Spark's stop and the JVM's scheduling, past the plan's margin of 1 s), uses at
   * least 80 % of it, trains more than 50 steps in it (a few rounds of 20 after Spark's start, even
   * on a machine three times slower than a quiet 2-core one), and its last round's learning rate is
   * the poly rate of the last step before max_iter: base / max_iter, zero at max_iter. Mutation:
   * without the solver's end moved (RoundPlan handing out no max_iter), the last rate was 0.00982
   * at iteration 180 (the file's max_iter of 10,000).
   *
   * <p>A command in a JVM younger than {@link TimeBudgetOption#FRESH_JVM} counts the budget from
   * the JVM's start (the JVM was started for it); this JVM was not, so the test first lets it grow
   * older than that (no wait in the whole suite, a few seconds when this class runs alone). Without
   * the wait, run alone on a quiet machine, the command stopped after its first round, 5 s after
   * the test's start.
   */
  @Test
  void aTimeBudgetEndsTheCommandInsideItWithTheRateAtZero() throws Exception {
    Path out = tmp.resolve("budget");
    long young =
        TimeBudgetOption.FRESH_JVM.toMillis()
            + 1000
            - ManagementFactory.getRuntimeMXBean().getUptime();
    if (young > 0) {
      Thread.sleep(young);
    }
    long t0 = System.nanoTime();
    Result r = train(solver("budget", true), out.toString(), "--tau", "20", "--time-budget", "30s");
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(0, r.exit(), r.toString());
    assertTrue(seconds <= 33, "the command took " + seconds + " s: " + r.out());
    assertTrue(seconds >= 24, "stopped well before the budget: " + seconds + " s: " + r.out());
    JsonNode last = lastRound(out);
    long iteration = last.path("iteration").asLong();
    double rate = last.path("learningRate").asDouble();
    assertTrue(iteration > 50 && iteration < 10_000, "steps planned: " + iteration);
    assertTrue(rate <= 0.01 / iteration * 1.0001, "rate " + rate + " at iteration " + iteration);
  }

  /**
   * Each place the run writes, under a regular file (as root, permissions stop nothing): exit 2
   * naming the option and the URI, printed before Spark starts (its first line is printed once
   * Spark has started), so no solver step ran. Mutation: without TrainCommand.checkWritable, the
   * checkpoint and metrics were found by the trainer once Spark had started, the plot only after
   * training ("Cannot write ..."), and the snapshot prefix not at all (exit 0).
   */
  @ParameterizedTest
  @ValueSource(strings = {"--checkpoint", "--snapshot-prefix", "--metrics", "--plot"})
  void anUnwritablePlaceStopsTheRunBeforeAnyStep(String option) throws Exception {
    Path file = Files.writeString(tmp.resolve("file-in-the-way" + option), "x");
    String place = file.resolve(option.equals("--checkpoint") ? "ckpt" : "sub/x").toString();
    Path out = tmp.resolve("unwritable" + option);
    Result r =
        train(
            solver("unwritable" + option, false),
            out.toString(),
            "--tau",
            "5",
            "--max-iter",
            "10",
            option,
            place);
    assertEquals(2, r.exit(), r.toString());
    String err = r.err().strip();
    String named =
        option.equals("--snapshot-prefix") ? "The snapshot prefix (--snapshot-prefix)" : option;
    assertTrue(err.startsWith("sparknet: error: " + named + ": Cannot write in "), err);
    assertTrue(err.contains(file.toString()), err);
    assertFalse(r.out().contains("SparkNet train:"), "Spark started: " + r.out());
    assertFalse(Files.exists(out.resolve("metrics.jsonl")), "a round was logged");
  }
}
