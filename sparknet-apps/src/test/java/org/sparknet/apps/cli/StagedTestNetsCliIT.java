package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;

/**
 * Caffe's MNIST auto-encoder example (its net shrunk to 784-50-784, the include/stage structure and
 * the solver's two test_state/test_iter pairs unchanged) trains through {@code sparknet train} on
 * Fashion-MNIST IDX for 2 rounds and reports both test nets, by number and stage, in the progress
 * lines and the metrics file. The net's data layers have one top, {@code data}, and no label.
 *
 * <p>Mutation: a trainer that tested only test net #0 (testAll stopping after net 0) failed at the
 * first progress line, which then read "test cross_entropy_loss 455.9039 l2_error 47.1970" with no
 * test net named.
 */
class StagedTestNetsCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern ROUND_LINE = Pattern.compile("(?m)^round +\\d+/2 .*$");

  @TempDir Path tmp;

  private Path solverFiles(String solverText) throws Exception {
    Path dir = tmp.resolve("ae");
    CliFixtures.copyResource(
        "/nets/mnist_autoencoder_small.prototxt", dir.resolve("mnist_autoencoder_small.prototxt"));
    Path solver = dir.resolve("solver.prototxt");
    Files.writeString(solver, solverText);
    return solver;
  }

  private static String caffeSolver() throws Exception {
    try (var in =
        StagedTestNetsCliIT.class.getResourceAsStream(
            "/nets/mnist_autoencoder_solver_small.prototxt")) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
          .replace("test_interval: 500", "test_interval: 5")
          .replace("max_iter: 65000", "max_iter: 10");
    }
  }

  @Test
  void bothTestNetsAreReportedEveryRound() throws Exception {
    Path data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 200, 100);
    Path out = tmp.resolve("run");
    Result r =
        CliFixtures.run(
            CliFixtures.trainArgs(
                solverFiles(caffeSolver()),
                data,
                "--workers",
                "2",
                "--tau",
                "5",
                "--rounds",
                "2",
                "--output",
                out.toString()));
    System.out.println(r);
    assertEquals(0, r.exit(), r.toString());

    Matcher m = ROUND_LINE.matcher(r.out());
    int lines = 0;
    while (m.find()) {
      lines++;
      assertTrue(m.group().contains("Test net #0 (test-on-train): cross_entropy_loss"), m.group());
      assertTrue(m.group().contains("Test net #1 (test-on-test): cross_entropy_loss"), m.group());
    }
    assertEquals(2, lines, r.out());

    List<String> rows = Files.readAllLines(out.resolve("metrics.jsonl"));
    assertEquals(2, rows.size(), "a line per round");
    for (String row : rows) {
      JsonNode o = JSON.readTree(row);
      JsonNode nets = o.path("testNets");
      assertEquals(2, nets.size(), row);
      for (int k = 0; k < 2; k++) {
        JsonNode n = nets.get(k);
        assertEquals(k, n.path("net").asInt(), row);
        String stage = k == 0 ? "test-on-train" : "test-on-test";
        assertEquals(List.of(stage), List.of(n.path("stages").get(0).asText()), row);
        assertTrue(n.path("outputs").path("l2_error").isNumber(), row);
        assertTrue(n.path("outputs").path("cross_entropy_loss").isNumber(), row);
      }
      // today's field: test net #0's outputs, for readers that know one test net
      assertEquals(nets.get(0).path("outputs"), o.path("validation"), row);
    }
    assertTrue(r.out().contains("Final test: Test net #0 (test-on-train): "), r.out());
  }
}
