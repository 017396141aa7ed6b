package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bytedeco.caffe.SolverState;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.NetDefinition;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;

/**
 * The solver file is the contract of {@code train}: max_iter, test_interval, display, snapshot and
 * snapshot_prefix of Caffe's LeNet solver (edited to small counts) drive a run on 600/200
 * Fashion-MNIST images with 2 workers, and SIGTERM to a real child JVM stops it after a round with
 * a snapshot.
 */
class SolverFileIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ROUND_LINE = Pattern.compile("(?m)^round +(\\d+)/(\\d+) .*$");

  @TempDir Path tmp;

  /** Caffe's one-time 16 bytes, paid before the leak check's first snapshot. */
  @BeforeAll
  static void loadCaffeOnce(@TempDir Path dir) throws Exception {
    Path solver = CliFixtures.caffeLeNet(dir);
    CaffeNet.create(CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42)).close();
  }

  /** Caffe's LeNet solver with small counts in place of its 10000/500/100/5000. */
  private Path solver(String prefix) throws Exception {
    Path solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    String text =
        Files.readString(solver)
            .replace("max_iter: 10000", "max_iter: 40")
            .replace("test_interval: 500", "test_interval: 20")
            .replace("display: 100", "display: 20")
            .replace("snapshot: 5000", "snapshot: 20")
            .replace(
                "snapshot_prefix: \"examples/mnist/lenet\"", "snapshot_prefix: \"" + prefix + "\"");
    Files.writeString(solver, text);
    return solver;
  }

  @Test
  void theSolverFileDrivesTheRun() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 600, 200);
    Path solver = solver("snaps/lenet");
    Path out = tmp.resolve("run");
    Result r =
        CliFixtures.run(
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
            "--lr",
            "0.02",
            "--output",
            out.toString());
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    // The first lines say where each value came from.
    assertTrue(r.out().contains("max_iter 40 (solver file)"), r.out());
    assertTrue(r.out().contains("display 20 (solver file)"), r.out());
    assertTrue(r.out().contains("lr 0.02 (--lr)"), r.out());
    assertTrue(r.out().contains("test_interval 20 (solver file)"), r.out());
    assertTrue(r.out().contains("workers 2 (--workers)"), r.out());
    // No --rounds: max_iter 40 at tau 10 is 4 rounds (a build ignoring max_iter fails at once:
    // "train needs --rounds").
    List<String> rows = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertEquals(4, rows.size(), "a line per round");
    // Each row's learning rate is lenet_solver's "inv" policy from --lr 0.02 at the round's last
    // step (iterations 9, 19, 29, 39). Broken on purpose, the next step's rate gave 0.0199850 for
    // 0.0199865 in round 1.
    for (int round = 1; round <= 4; round++) {
      double lr = 0.02 * Math.pow(1 + 0.0001 * (10 * round - 1), -0.75);
      double reported = JSON.readTree(rows.get(round - 1)).path("learningRate").asDouble();
      assertEquals(lr, reported, 1e-8, rows.get(round - 1)); // float solver fields
    }
    // display 20 and test_interval 20 at tau 10: a line, with a test, after rounds 2 and 4 only
    // (with display ignored, a line per round: 4 lines).
    Matcher m = ROUND_LINE.matcher(r.out());
    StringBuilder rounds = new StringBuilder();
    while (m.find()) {
      rounds.append(m.group(1)).append('/').append(m.group(2)).append(' ');
      assertTrue(m.group().contains("test accuracy"), m.group());
      assertTrue(m.group().contains("ETA"), m.group());
    }
    assertEquals("2/4 4/4 ", rounds.toString(), r.out());
    // snapshot 20 with snapshot_prefix "snaps/lenet", under --output, as Caffe names the files.
    for (int iter : new int[] {20, 40}) {
      assertTrue(Files.size(out.resolve("snaps/lenet_iter_" + iter + ".caffemodel")) > 1_000_000);
      assertTrue(Files.isRegularFile(out.resolve("snaps/lenet_iter_" + iter + ".solverstate")));
    }
    assertFalse(Files.exists(out.resolve("snaps/lenet_iter_30.caffemodel")));
    checkCaffeLoads(solver, out);
  }

  /** Caffe's own readers take the snapshot: weights, the iteration, and learned_net. */
  private static void checkCaffeLoads(Path solver, Path out) {
    Path model = out.resolve("snaps/lenet_iter_40.caffemodel");
    Path state = out.resolve("snaps/lenet_iter_40.solverstate");
    NetDefinition def = CaffeFiles.read(solver, null).definition(List.of(1, 28, 28), 42);
    try (CaffeNet fromSnapshot = CaffeNet.create(def);
        CaffeNet fromFinal = CaffeNet.create(def);
        PointerScope scope = new PointerScope()) {
      SolverState proto = new SolverState();
      CaffeModels.load(fromSnapshot, model);
      CaffeModels.loadSolverState(fromSnapshot, state);
      assertEquals(40, fromSnapshot.iteration());
      CaffeModels.load(fromFinal, out.resolve("final.caffemodel"));
      assertArrayEquals(
          fromFinal.getWeights().get("conv1").get(0).data(),
          fromSnapshot.getWeights().get("conv1").get(0).data(),
          "the last snapshot holds the final weights");
      assertTrue(caffe.ReadProtoFromBinaryFile(state.toString(), proto));
      assertEquals(model.toString(), proto.learned_net().getString());
    }
  }

  @Test
  void flagsWinAndTestIsOptional() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 600, 200);
    Path out = tmp.resolve("run");
    Result r =
        CliFixtures.run(
            "train",
            "--solver",
            solver("snaps/lenet").toString(),
            "--train",
            data.resolve("train-images-idx3-ubyte").toString(),
            "--tau",
            "10",
            "--max-iter",
            "10",
            "--snapshot",
            "0",
            "--output",
            out.toString());
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());
    assertTrue(r.out().contains("max_iter 10 (--max-iter)"), r.out());
    assertTrue(r.out().contains("(default: task slots)"), r.out());
    assertEquals(1, Files.readAllLines(out.resolve("metrics.jsonl")).size(), r.out());
    assertFalse(r.out().contains("Final test"), "no --test, no test: " + r.out());
    assertFalse(Files.exists(out.resolve("snaps")), "--snapshot 0 wins over snapshot: 20");
  }

  /**
   * SIGTERM to a child JVM training Caffe's unchanged LeNet solver (max_iter 10000, snapshot 5000,
   * snapshot_prefix examples/mnist/lenet) for 500 rounds: it stops after the current round, writes
   * PREFIX_iter_N.caffemodel and .solverstate, then final.caffemodel, and exits 0 (as caffe train
   * does). Without the handler the JVM dies at once (exit 143) and writes neither.
   */
  @Test
  void sigtermStopsAfterTheRoundWithASnapshot() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 600, 200);
    Path out = tmp.resolve("run");
    Path log = tmp.resolve("child.log");
    Process p =
        CliFixtures.childJvm(
                log,
                "train",
                "--solver",
                CliFixtures.caffeLeNet(tmp.resolve("caffe")).toString(),
                "--train",
                data.resolve("train-images-idx3-ubyte").toString(),
                "--workers",
                "2",
                "--tau",
                "5",
                "--rounds",
                "500",
                "--display",
                "0",
                "--output",
                out.toString())
            .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
      while (!Files.readString(log).contains("round   1/500") && System.nanoTime() < deadline) {
        assertTrue(p.isAlive(), "the child ended early: " + Files.readString(log));
        Thread.sleep(200);
      }
      p.destroy(); // SIGTERM
      assertTrue(p.waitFor(2, TimeUnit.MINUTES), "no exit 2 minutes after SIGTERM");
    } finally {
      p.destroyForcibly();
    }
    String text = Files.readString(log);
    System.out.println(text);
    assertEquals(0, p.exitValue(), text);
    Matcher m = Pattern.compile("Stopped by SIGTERM after round (\\d+)").matcher(text);
    assertTrue(m.find(), text);
    int round = Integer.parseInt(m.group(1));
    assertTrue(round < 500, text);
    Path prefix = out.resolve("examples/mnist/lenet_iter_" + (5 * round));
    assertTrue(Files.size(Path.of(prefix + ".caffemodel")) > 1_000_000, text);
    assertTrue(Files.isRegularFile(Path.of(prefix + ".solverstate")), text);
    assertTrue(Files.isRegularFile(out.resolve("final.caffemodel")), text);
  }
}
