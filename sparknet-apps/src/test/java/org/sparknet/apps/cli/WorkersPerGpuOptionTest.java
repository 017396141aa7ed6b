package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.device.GpuSharing;
import org.sparknet.api.train.TrainerConfig;
import org.sparknet.apps.charrnn.CharRnn;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import picocli.CommandLine;

/**
 * {@code --workers-per-gpu}: the worker count of a local run on N visible GPUs (laid out by the
 * test: this machine has none, so the rule is called with N), and exit 2 before Spark or Caffe for
 * a K below 1.
 *
 * <p>A broken build whose default ignored the GPUs (the task slots, as before) gave "N GPUs run N
 * workers ==> expected: <3> but was: <16>"; one that did not check --workers against K×N gave
 * "Expected java.lang.IllegalArgumentException to be thrown, but nothing was thrown"; without
 * {@code check()} the K = 0 run went on to read the data and failed in TrainerConfig with exit 2
 * but "workersPerGpu (workers sharing each GPU) must be > 0", not naming the option.
 */
class WorkersPerGpuOptionTest {
  @TempDir Path tmp;

  @Test
  void localGpusRunKWorkersEachByDefault() {
    assertEquals(3, workers(GpuSharing.DEFAULT, "gpu", null, 3), "N GPUs run N workers");
    assertEquals(6, workers(GpuSharing.of(2), "gpu", null, 3), "K = 2 on 3 GPUs");
    assertEquals(4, workers(GpuSharing.of(4), "gpu:1", null, 1), "K = 4 on one named GPU");
    assertEquals(16, workers(GpuSharing.DEFAULT, "gpu:1", null, 1), "gpu:N without K: the slots");
    assertEquals(5, workers(GpuSharing.of(2), "gpu", 5, 3), "--workers within K×N");
  }

  @Test
  void moreWorkersThanKTimesTheGpusIsAnErrorNamingTheOption() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> workers(GpuSharing.of(2), "gpu", 7, 3));
    assertEquals(
        "--workers-per-gpu 2: 7 workers do not fit 2 per GPU on 3 visible GPU(s): at most 6;"
            + " raise the workers per GPU or lower the workers",
        e.getMessage());
    assertEquals(9, workers(GpuSharing.DEFAULT, "gpu", 9, 3), "without K, workers wrap round");
  }

  @Test
  void kBelowOneIsExitTwoNamingTheOption() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 10, 10);
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            solver.toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--rounds",
            "1",
            "--tau",
            "1",
            "--workers-per-gpu",
            "0");
    assertEquals(2, r.exit(), r.toString());
    assertTrue(
        r.err().contains("sparknet: error: --workers-per-gpu must be >= 1 but was 0"),
        r.toString());
  }

  /**
   * demo and char-rnn take the option too: K reaches their trainer, and K = 0 is exit 2 before
   * their data is read. Broken builds seen: without the option in LocalRunOptions, "Unknown
   * options: '--workers-per-gpu', '3'"; without {@code perGpu.apply}, "expected: <3> but was: <1>".
   */
  @Test
  void demoAndCharRnnTakeTheOptionAndPassKToTheTrainer() {
    CharRnnCommand rnn = new CharRnnCommand();
    new CommandLine(rnn).parseArgs("--workers-per-gpu", "3", "--workers", "2", "--device", "cpu");
    NetDefinition def = CharRnn.definition(8, 2, 16, 0.01, 1);
    LocalRunOptions.Placement placement = rnn.run.place("test", def);
    assertEquals(2, placement.workers());
    TrainerConfig config = rnn.run.config(placement.onDevice(def), 2, 1, 1).build();
    assertEquals(3, config.gpuSharing().workersPerGpu());
    assertEquals("cpu", config.netDefinition().device());
    for (String command : new String[] {"demo", "char-rnn"}) {
      Result r = CliFixtures.run(command, "--workers-per-gpu", "0");
      assertEquals(2, r.exit(), r.toString());
      assertTrue(
          r.err().contains("sparknet: error: --workers-per-gpu must be >= 1 but was 0"),
          r.toString());
    }
  }

  private static int workers(GpuSharing s, String device, Integer workers, int visible) {
    return WorkersPerGpuOption.workers(s, device, workers, 16, 1, visible);
  }
}
