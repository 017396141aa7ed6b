package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.checkpoint.CheckpointDir;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeNet;

/**
 * Divergence through the CLI on local[2]: Caffe's LeNet solver with a "step" policy whose learning
 * rate jumps from 0.01 to 10^6 at iteration 20, tau 10. Rounds 1 and 2 are good and checkpointed;
 * round 3 produces NaN. The run stops with exit 1 and a message naming round 3 and a partition; the
 * checkpoint of round 2 stays intact, finite, and a rerun on it resumes.
 */
class DivergenceIT {
  @TempDir Path tmp;

  @BeforeAll
  static void loadCaffeOnce(@TempDir Path dir) throws Exception {
    Path solver = CliFixtures.caffeLeNet(dir);
    CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42)).close();
  }

  @Test
  void nanStopsTrainingNamingRoundAndPartitionAndKeepsTheLastGoodCheckpoint() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 512, 100);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    String text = Files.readString(solver);
    Files.writeString(
        solver,
        text.replace("lr_policy: \"inv\"", "lr_policy: \"step\"\nstepsize: 20")
            .replace("gamma: 0.0001", "gamma: 100000000"));
    Path ckpt = tmp.resolve("ckpt");
    String[] args = {
      "train",
      "--solver",
      solver.toString(),
      "--train",
      data.resolve("train-images-idx3-ubyte").toString(),
      "--test",
      data.resolve("t10k-images-idx3-ubyte").toString(),
      "--workers",
      "2",
      "--tau",
      "10",
      "--rounds",
      "4",
      "--checkpoint",
      ckpt.toString(),
      "--output",
      tmp.resolve("out").toString()
    };

    // In a child JVM, as bin/sparknet runs it: the exit code shows the JVM ended by itself (1), not
    // by an abort (134). DivergedNetIT (sparknet-caffe) shows the same in one long-lived JVM.
    String err = runInChildJvm(args);
    assertTrue(err.startsWith("exit 1\n"), err);
    assertTrue(err.contains("Training diverged in round 3, partition "), err);
    assertTrue(err.contains("non-finite"), err);
    assertFalse(Files.exists(tmp.resolve("out/final.caffemodel")), "no model from a diverged run");

    Checkpoint c = new CheckpointDir(ckpt.toUri().toString(), new Configuration()).readLatest();
    assertNotNull(c);
    assertEquals(2, c.round());
    for (float w : c.weights()) {
      assertTrue(Float.isFinite(w), "non-finite weight in the last good checkpoint");
    }
    assertArrayEquals(new long[] {2 * 10 * 64, 2 * 10 * 64}, c.positions(), "examples fed");

    // The last good checkpoint loads: the same command with --rounds 2 resumes at round 2 and
    // writes its weights.
    args[12] = "2";
    Result resumed = CliFixtures.run(args);
    assertEquals(0, resumed.exit(), resumed.toString());
    assertTrue(resumed.out().contains("Resumed from round 2"), resumed.toString());
    assertTrue(Files.size(tmp.resolve("out/final.caffemodel")) > 1_000_000, resumed.toString());
  }

  /** Runs the CLI from the shaded jar in a child JVM; returns "exit N\n" and its output. */
  private String runInChildJvm(String[] args) throws Exception {
    Path log = tmp.resolve("child.log");
    ProcessBuilder pb = CliFixtures.childJvm(log, args);
    Process p = pb.start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("the CLI did not finish in 5 minutes: " + Files.readString(log));
    }
    return "exit " + p.exitValue() + "\n" + Files.readString(log);
  }
}
