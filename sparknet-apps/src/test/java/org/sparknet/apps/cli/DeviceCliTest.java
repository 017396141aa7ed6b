package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.apps.testing.CliFixtures;
import org.sparknet.apps.testing.CliFixtures.Result;

/**
 * {@code --device} on every command, on this build (the CPU jar: Caffe's linux-x86_64 natives, no
 * CUDA): a GPU is refused with exit 2 and one line naming what is missing, before Spark starts and
 * before Caffe makes any GPU call; a solver's {@code solver_mode: GPU} means "gpu" unless {@code
 * --device} says otherwise.
 *
 * <p>Broken builds this catches: with DeviceOptions' local pre-check removed, 7 of the 8 cases
 * failed (train reached Spark and stopped in its task with "the executor can use none: this
 * SparkNet build is CPU-only ...", test and predict on the empty weights file); with
 * requestedDevice returning "cpu" whatever the solver says, the solver_mode test found no
 * "solver_mode: GPU ignored" line.
 */
class DeviceCliTest {
  private static final String CPU_ONLY = "this SparkNet build is CPU-only";

  @TempDir Path tmp;
  private Path data;
  private Path solver;
  private Path weights;
  private Path text;

  @BeforeEach
  void fixtures() throws Exception {
    data = tmp.resolve("data");
    CliFixtures.fashionMnistSubset(data, 10, 10);
    solver = CliFixtures.caffeLeNet(tmp.resolve("caffe"));
    weights = Files.writeString(tmp.resolve("w.caffemodel"), "");
    text = Files.createDirectories(tmp.resolve("text"));
    Files.writeString(text.resolve("a.c"), "int main(void) { return 0; }\n".repeat(20));
  }

  private String[] command(String name, String device) {
    String train = data.resolve("train-images-idx3-ubyte").toString();
    String test = data.resolve("t10k-images-idx3-ubyte").toString();
    String s = solver.toString();
    String w = weights.toString();
    List<String> a =
        switch (name) {
          case "train" ->
              List.of("train", "--solver", s, "--train", train, "--test", test, "--workers", "2");
          case "test" -> List.of("test", "--solver", s, "--weights", w, "--test", test);
          case "predict" ->
              List.of(
                  "predict",
                  "--solver",
                  s,
                  "--weights",
                  w,
                  "--input",
                  test,
                  "--output",
                  tmp.resolve("preds").toString());
          case "demo" -> List.of("demo", "--plot", tmp.resolve("demo.png").toString());
          case "char-rnn" -> List.of("char-rnn", "--text", text.toString(), "--ext", ".c");
          default ->
              List.of(
                  "autoencoder",
                  "--train",
                  "100",
                  "--test",
                  "10",
                  "--out",
                  tmp.resolve("ae").toString());
        };
    List<String> all = new java.util.ArrayList<>(a);
    if (name.equals("train")) {
      all.addAll(List.of("--tau", "1", "--rounds", "1"));
    }
    all.addAll(List.of("--device", device));
    return all.toArray(new String[0]);
  }

  @ParameterizedTest
  @ValueSource(strings = {"train", "test", "predict", "demo", "char-rnn", "autoencoder"})
  void gpuOnThisBuildIsExitTwoWithOneLineNamingWhatIsMissing(String name) {
    Result r = CliFixtures.run(command(name, "gpu"));
    assertEquals(2, r.exit(), r.toString());
    List<String> lines = r.err().lines().toList();
    assertEquals(1, lines.size(), r.toString());
    assertTrue(
        lines.get(0).startsWith("sparknet: error: --device gpu: no GPU can be used here: "),
        r.toString());
    assertTrue(lines.get(0).contains(CPU_ONLY), r.toString());
  }

  @Test
  void aNamedGpuAndABadNameAreExitTwoToo() {
    Result r = CliFixtures.run(command("train", "gpu:1"));
    assertEquals(2, r.exit(), r.toString());
    assertTrue(r.err().contains("--device gpu:1: no GPU can be used here"), r.toString());
    Result bad = CliFixtures.run(command("train", "cuda"));
    assertEquals(2, bad.exit(), bad.toString());
    assertTrue(bad.err().contains("--device must be cpu, gpu, auto or gpu:N"), bad.toString());
  }

  @Test
  void solverModeGpuMeansGpuUnlessDeviceSaysOtherwise() throws Exception {
    // Caffe's unchanged lenet_solver.prototxt says solver_mode: GPU.
    assertTrue(Files.readString(solver).contains("solver_mode: GPU"));
    NetDefinition def =
        new CaffeFiles(Files.readString(solver), "", "net").definition(List.of(1, 28, 28), 1);
    DeviceOptions chosen = new DeviceOptions();
    chosen.device = "cpu";
    assertEquals("cpu", chosen.apply(def, null).device());
    chosen.device = "auto";
    assertEquals("auto", chosen.apply(def, null).device());
    // On a cluster the executors decide; a GPU build passes solver_mode: GPU on as "gpu".
    chosen.device = "gpu";
    assertEquals("gpu", chosen.apply(def, "spark://127.0.0.1:7077").device());

    DeviceOptions fromSolver = new DeviceOptions();
    Printed r = printed(() -> fromSolver.apply(def, null).device());
    assertEquals("cpu", r.value(), "the CPU jar runs solver_mode: GPU on the CPU");
    assertTrue(r.out().startsWith("solver_mode: GPU ignored, the nets run on the CPU: "), r.out());
    assertTrue(r.out().contains(CPU_ONLY), r.out());
    String noMode = Files.readString(solver).replace("solver_mode: GPU", "");
    NetDefinition cpuSolver = new CaffeFiles(noMode, "", "net").definition(List.of(1, 28, 28), 1);
    Printed quiet = printed(() -> fromSolver.apply(cpuSolver, null).device());
    assertEquals("cpu", quiet.value());
    assertFalse(quiet.out().contains("solver_mode"), quiet.out());
  }

  private record Printed(String value, String out) {}

  private static Printed printed(Supplier<String> f) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream old = System.out;
    String v;
    try {
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      v = f.get();
    } finally {
      System.setOut(old);
    }
    return new Printed(v, out.toString(StandardCharsets.UTF_8));
  }
}
