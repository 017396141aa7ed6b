package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * Bad definitions and bad data throw IllegalArgumentException with a message that names what is
 * wrong and where, and never abort the JVM (each case is followed by a net that still trains). Goes
 * through NetProvider.build, so the dry run is on (default) for the cases Java lets through.
 */
class ValidationIT {
  private static final String NET = TinyNets.net("tiny", "ReLU");
  private static final String SOLVER = TinyNets.SOLVER;

  private static NetDefinition def(String solver, String net) {
    return NetDefinition.caffe(solver, net, null);
  }

  private static Arguments bad(String what, NetDefinition d, String... expected) {
    return Arguments.of(what, d, List.of(expected));
  }

  static Stream<Arguments> cases() {
    String lenetNet = Zoo.text("lenet_train_test.prototxt");
    String lenetSolver = Zoo.text("lenet_solver.prototxt");
    return Stream.of(
        bad(
            "unclosed brace",
            def(SOLVER, NET + "layer {\n  name: \"x\"\n"),
            "net definition",
            "'}' is missing"),
        bad(
            "syntax error with line and column",
            def(SOLVER, "name: \"x\"\nlayer {\n  name: \"a\"\n  type: = \"Input\"\n}\n"),
            "line 4, column 9",
            "expected a value"),
        bad(
            "unclosed string",
            def(SOLVER, "name: \"x\nlayer {}\n"),
            "line 1, column 7",
            "string is not closed"),
        bad(
            "unknown field",
            def(SOLVER, NET.replace("name: \"conv\"", "nme: \"conv\"")),
            "line 4, column 9",
            "has no field 'nme'",
            "caffe.LayerParameter"),
        bad(
            "wrong enum",
            def(SOLVER, NET.replace("kernel_size: 3", "kernel_size: 3 engine: FAST")),
            "'engine'",
            "expects one of [",
            "CAFFE"),
        bad(
            "message given a value",
            def(SOLVER, NET.replace("convolution_param {", "convolution_param: 3 blah {")),
            "convolution_param"),
        bad(
            "unknown layer type",
            def(SOLVER, NET.replace("\"Convolution\"", "\"Convolutoin\"")),
            "layer 'conv'",
            "unknown layer type 'Convolutoin'",
            "Convolution,"),
        bad(
            "bottom nobody produces",
            def(
                SOLVER,
                NET.replace("bottom: \"conv\" top: \"ip\"", "bottom: \"conf\" top: \"ip\"")),
            "layer 'ip'",
            "reads bottom 'conf'",
            "phase TRAIN"),
        bad(
            "bottom produced only in the other phase",
            def(
                SOLVER,
                NET.replace(
                    "layer { name: \"conv\"", "layer { name: \"conv\" include { phase: TEST }")),
            "layer 'act'",
            "reads bottom 'conv'",
            "phase TRAIN"),
        bad(
            "wrong bottom count",
            def(
                SOLVER,
                NET.replace(
                    "bottom: \"conv\" top: \"ip\"",
                    "bottom: \"conv\" bottom: \"data\" top: \"ip\"")),
            "layer 'ip' (InnerProduct)",
            "needs exactly 1 bottom blob(s) but has 2"),
        bad(
            "wrong top count",
            def(SOLVER, NET.replace("top: \"loss\"", "top: \"loss\" top: \"a\" top: \"b\"")),
            "layer 'loss' (SoftmaxWithLoss)",
            "top blob(s) but has 3"),
        bad(
            "Input batch mismatch",
            def(SOLVER, NET.replace("shape { dim: 8 } }", "shape { dim: 5 } }")),
            "layer 'in'",
            "inconsistent with the batch size 8"),
        bad(
            "solver names a net file",
            def(lenetSolver, null),
            "names the net file 'examples/mnist/lenet_train_test.prototxt'",
            "netText"),
        bad("solver without a net", def(SOLVER, null), "has no net"),
        bad(
            "RMSProp with momentum",
            def("type: \"RMSProp\"\n" + SOLVER, NET),
            "momentum",
            "RMSProp solver does not use momentum"),
        bad(
            "unknown solver type",
            def("type: \"Adamm\"\n" + SOLVER, NET),
            "unknown solver type 'Adamm'",
            "Adam"),
        bad("missing lr_policy", def("base_lr: 0.1\n", NET), "lr_policy", "missing"),
        bad(
            "unknown lr_policy",
            def("base_lr: 0.1\nlr_policy: \"cosine\"\n", NET),
            "unknown policy 'cosine'"),
        bad(
            "step policy without stepsize",
            def("base_lr: 0.1\nlr_policy: \"step\"\n", NET),
            "stepsize"),
        bad(
            "device that does not exist",
            def(SOLVER, NET).withDevice("gpu:3"),
            "'gpu:3'",
            "CPU-only"),
        bad(
            "Data layer without sampleShape",
            def(lenetSolver, lenetNet),
            "layer 'mnist' (Data)",
            "sampleShape"),
        bad(
            "crop larger than the example",
            NetDefinition.caffe(
                lenetSolver,
                lenetNet.replaceFirst("scale: 0.00390625", "scale: 0.00390625\n    crop_size: 32"),
                List.of(1, 28, 28)),
            "layer 'mnist' (Data)",
            "transform_param.crop_size 32 does not fit examples of shape [1, 28, 28]"),
        bad(
            "missing mean file",
            NetDefinition.caffe(
                lenetSolver,
                lenetNet.replaceFirst(
                    "scale: 0.00390625",
                    "scale: 0.00390625\n    mean_file: \"no/such/mean.binaryproto\""),
                List.of(1, 28, 28)),
            "layer 'mnist' (Data)",
            "transform_param.mean_file no/such/mean.binaryproto does not exist"),
        bad(
            "V1 and V2 layers in one net",
            def(SOLVER, NET + "layers { name: \"r\" type: RELU bottom: \"ip\" top: \"ip\" }\n"),
            "net definition, line",
            "both V1 'layers' and V2 'layer' blocks"),
        // Java cannot see this one: the dry run in a child JVM turns Caffe's CHECK into the error.
        bad(
            "kernel larger than the input (dry run)",
            def(SOLVER, NET.replace("kernel_size: 3", "kernel_size: 9")),
            "Caffe rejects this net definition, layer 'conv': ",
            "Check failed"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badDefinitionIsRejectedWithAClearMessage(
      String what, NetDefinition definition, List<String> expected) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> NetProvider.build(definition).close());
    for (String part : expected) {
      assertTrue(
          e.getMessage().contains(part),
          what + ": message should contain \"" + part + "\" but was: " + e.getMessage());
    }
    assertStillAlive();
  }

  @Test
  void badDataIsRejectedBeforeCaffeSeesIt() {
    try (Net net = NetProvider.build(TinyNets.definition())) {
      IllegalArgumentException nan =
          assertThrows(
              IllegalArgumentException.class,
              () -> net.train(1, in -> in.get("data").setFlat(17, Float.NaN)));
      assertTrue(
          nan.getMessage().contains("NaN at flat index 17 of input blob 'data'"), nan.getMessage());
      IllegalArgumentException label =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  net.train(
                      1,
                      in -> {
                        TinyNets.quadrants(1).fill(in);
                        in.get("label").setFlat(3, 4f);
                      }));
      assertTrue(
          label.getMessage().contains("label 4.0 at index 3 of blob 'label'"), label.getMessage());
      assertTrue(label.getMessage().contains("[0, 4)"), label.getMessage());
      assertThrows(
          IllegalArgumentException.class, () -> net.test(1, in -> in.get("label").setFlat(0, -1f)));
      assertEquals(0, net.iteration(), "no step ran on bad data");
    }
    assertStillAlive();
  }

  /** The JVM is alive (we are running) and Caffe still works after every rejected case. */
  private static void assertStillAlive() {
    try (Net net = CaffeNet.create(TinyNets.definition(), false)) {
      assertTrue(Float.isFinite(net.train(1, TinyNets.quadrants(1))));
    }
  }
}
