package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.caffe.CaffeModels;
import org.sparknet.caffe.CaffeNet;
import org.sparknet.ndarray.NDArray;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.OnnxRuntimeRun;
import org.sparknet.testing.Tolerance;
import org.sparknet.testing.data.FashionMnist;

/**
 * {@code sparknet export}: the fast recipe, trained a few steps, exported through the CLI runs in
 * ONNX Runtime with Caffe's outputs on real Fashion-MNIST images; the README's export line works as
 * written; bad input is exit 2 with one line and leaves no file.
 */
class ExportCommandIT {
  /** Caffe against ONNX Runtime: within 1e-4, absolute, or relative above 1. */
  private static final Tolerance ONNX = new Tolerance(1e-4, 1e-4);

  @RegisterExtension final CapturedOutput io = new CapturedOutput();
  private final ByteArrayOutputStream out = io.out;
  private final ByteArrayOutputStream err = io.err;

  @TempDir Path tmp;

  private static String resource(String name) throws IOException {
    try (InputStream in = ExportCommandIT.class.getResourceAsStream("/org/sparknet/apps/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Fashion-MNIST test images into "data" ([N, 1, 28, 28]) times {@code scale}, and labels. */
  private static BatchFeeder fashion(float scale) {
    List<Example> images = FashionMnist.load(false, 100);
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      for (int n = 0; n < data.shape().dim(0); n++) {
        float[] px = images.get(n % images.size()).features().clone();
        for (int k = 0; k < px.length; k++) {
          px[k] *= scale;
        }
        data.slice(0, n).copyFrom(px);
        if (in.containsKey("label")) {
          in.get("label").setFlat(n, images.get(n % images.size()).label());
        }
      }
    };
  }

  /**
   * The fast recipe (3x3 padded convolutions, dropout; Input layers that take [0, 1) pixels). With
   * the export's Gemm reading the InnerProduct weights untransposed, ONNX Runtime refused the model
   * (a broken build fails here, before any comparison).
   */
  @Test
  void exportsTheFastRecipeAndOnnxRuntimeAgreesWithCaffe() throws Exception {
    String text = resource("mnist/fashion_fast.prototxt");
    Path net = Files.writeString(tmp.resolve("fast.prototxt"), text);
    Path weights = tmp.resolve("fast.caffemodel");
    Path onnx = tmp.resolve("fast.onnx");
    NetDefinition def =
        NetDefinition.caffe(resource("mnist/fashion_fast_solver.prototxt"), text, null);
    BatchFeeder feeder = fashion(1f);
    try (CaffeNet caffe = CaffeNet.create(def, false)) {
      assertTrue(Float.isFinite(caffe.train(10, feeder)));
      CaffeModels.save(caffe, weights, false);
      int rc =
          SparkNetCli.run(
              "export",
              "--net",
              net.toString(),
              "--weights",
              weights.toString(),
              "--onnx",
              onnx.toString());
      assertEquals(0, rc, text(err));
      assertTrue(text(out).contains("inputs:  data [N, 1, 28, 28]"), text(out));
      assertTrue(text(out).contains("outputs: score [N, 10], prob [N, 10]"), text(out));
      Map<String, NDArray> expected = caffe.forward(feeder, List.of("data", "score"));
      try (OnnxRuntimeRun ort = OnnxRuntimeRun.of(onnx)) {
        float[] data = expected.get("data").toArray();
        Map<String, OnnxRuntimeRun.Output> got = ort.run("data", data, 100, 1, 28, 28);
        assertArrayEquals(new long[] {100, 10}, got.get("score").shape());
        NDAssert.assertAllClose(expected.get("score").toArray(), got.get("score").values(), ONNX);
      } finally {
        expected.values().forEach(NDArray::close);
      }
    }
  }

  /** The README's export line, with its weights from a LeNet made here and the output in tmp. */
  @Test
  void theReadmeExportLineRuns() throws Exception {
    List<List<String>> commands =
        ReadmeCommandsIT.sparknetCommands(ReadmeCommandsIT.block("bin/sparknet export"));
    assertEquals(1, commands.size(), "one export line: " + commands);
    List<String> c = new java.util.ArrayList<>(commands.get(0).subList(1, commands.get(0).size()));
    Path root = Path.of("..").toAbsolutePath().normalize();
    String netFile = c.get(c.indexOf("--net") + 1);
    Path weights = tmp.resolve("final.caffemodel");
    NetDefinition def =
        NetDefinition.caffe(
            Files.readString(root.resolve("examples/mnist/lenet_solver.prototxt")),
            Files.readString(root.resolve(netFile)),
            List.of(1, 28, 28));
    try (CaffeNet caffe = CaffeNet.create(def, false)) {
      CaffeModels.save(caffe, weights, false);
    }
    c.set(c.indexOf("--net") + 1, root.resolve(netFile).toString());
    c.set(c.indexOf("--weights") + 1, weights.toString());
    Path onnx = tmp.resolve(c.get(c.indexOf("--onnx") + 1));
    c.set(c.indexOf("--onnx") + 1, onnx.toString());
    assertEquals(0, SparkNetCli.run(c.toArray(String[]::new)), text(err));
    try (OnnxRuntimeRun ort = OnnxRuntimeRun.of(onnx)) {
      assertArrayEquals(new long[] {-1, 1, 28, 28}, ort.inputShape("data"));
      assertEquals(List.of("ip2", "prob"), ort.outputNames().stream().sorted().toList());
    }
  }

  /**
   * Bad input: exit 2, one line naming the culprit, no file left. Without the check that the whole
   * net converts before the file is opened, the unsupported layer left '_bad.onnx.tmp' behind.
   */
  @Test
  void badInputExitsTwoAndWritesNothing() throws Exception {
    Path net =
        Files.writeString(
            tmp.resolve("prelu.prototxt"),
            "name: \"p\"\nlayer { name: \"in\" type: \"Input\" top: \"data\""
                + " input_param { shape { dim: 1 dim: 1 dim: 4 dim: 4 } } }\n"
                + "layer { name: \"act\" type: \"PReLU\" bottom: \"data\" top: \"act\" }\n");
    Path weights = tmp.resolve("p.caffemodel");
    NetDefinition def =
        NetDefinition.caffe("base_lr: 0.1\nlr_policy: \"fixed\"\n", Files.readString(net), null);
    try (CaffeNet caffe = CaffeNet.create(def, false)) {
      CaffeModels.save(caffe, weights, false);
    }
    Path onnx = tmp.resolve("bad.onnx");
    String[] args = {
      "export", "--net", net.toString(), "--weights", weights.toString(), "--onnx", onnx.toString()
    };
    assertEquals(2, SparkNetCli.run(args));
    assertTrue(text(err).contains("layer 'act' (PReLU)"), text(err));
    assertEquals(1, text(err).strip().lines().count(), text(err));
    try (var files = Files.list(tmp)) {
      assertEquals(
          List.of(), files.filter(p -> p.getFileName().toString().contains("bad")).toList());
    }
    err.reset();
    args[4] = tmp.resolve("none.caffemodel").toString();
    assertEquals(2, SparkNetCli.run(args));
    assertTrue(text(err).contains("--weights file "), text(err));
    assertTrue(text(err).contains("none.caffemodel does not exist"), text(err));
    Files.writeString(onnx, "x");
    err.reset();
    args[4] = weights.toString();
    assertEquals(2, SparkNetCli.run(args));
    assertTrue(text(err).contains("--onnx "), text(err));
    assertTrue(text(err).contains("bad.onnx already exists"), text(err));
    assertFalse(text(err).contains("Exception"), text(err));
  }

  private static String text(ByteArrayOutputStream s) {
    return s.toString(StandardCharsets.UTF_8);
  }
}
