package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The Java upgrade of Caffe's older net formats, without Caffe: exact output for real files, and
 * Caffe's own upgrade tests (test_upgrade_proto.cpp) as input/expected pairs. UpgradeOracleIT
 * compares the same files with Caffe's native upgrade.
 *
 * <p>Mutations seen to fail here: an upgrader that skipped {@code blobs_lr} failed 7 tests (the
 * four V1 pairs of Caffe's tests, the consolidated LeNet, the deploy net and the param-spec case:
 * the param blocks lost their lr_mult); one that mapped CONVOLUTION to "Convolutional" failed 6;
 * one that put the Input layer of net-level inputs last failed the two input tests.
 */
class NetUpgradeTest {
  static String resource(String name) {
    try (InputStream in = NetUpgradeTest.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalStateException("No test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static NetUpgrade.Result net(String text) {
    return NetUpgrade.of(TextFormat.parse(text, "test.prototxt"), "test.prototxt");
  }

  private static IllegalArgumentException bad(String text) {
    return assertThrows(IllegalArgumentException.class, () -> net(text));
  }

  @Test
  void consolidatedLeNetSolverUpgradesExactly() {
    String file = "upgrade/lenet_consolidated_solver.prototxt";
    NetUpgrade.Result r = SolverUpgrade.of(TextFormat.parse(resource(file), file), file);
    assertEquals(
        resource("upgrade/lenet_consolidated_solver.upgraded.prototxt"), TextFormat.print(r.net()));
    assertEquals(List.of("net_param: V1 layers"), r.notes());
  }

  /** Caffe's test pairs: the upgrade of the input equals the upgrade of Caffe's expected output. */
  @ParameterizedTest(name = "{0}: {1} -> {2}")
  @CsvSource({
    "NetUpgradeTest_TestSimple, v0_proto, expected_v2_proto",
    "NetUpgradeTest_TestSimple, expected_v1_proto, expected_v2_proto",
    "NetUpgradeTest_TestImageNet, v0_proto, expected_v2_proto",
    "NetUpgradeTest_TestImageNet, expected_v1_proto, expected_v2_proto",
    "NetUpgradeTest_TestAllParams, input_proto, expected_output_proto",
    "PaddingLayerUpgradeTest_TestSimple, input_proto, expected_output_proto",
    "PaddingLayerUpgradeTest_TestTwoTops, input_proto, expected_output_proto",
    "PaddingLayerUpgradeTest_TestImageNet, input_proto, expected_output_proto"
  })
  void agreesWithCaffesOwnUpgradeTests(String test, String input, String expected) {
    String in = resource("upgrade/caffe-tests/" + test + "." + input + ".prototxt");
    String out = resource("upgrade/caffe-tests/" + test + "." + expected + ".prototxt");
    NetUpgrade.Result upgraded = net(in);
    assertTrue(upgraded.upgraded());
    assertEquals(canonical(net(out).net()), canonical(upgraded.net()));
  }

  @Test
  void v1DeployWithInputDimsUpgradesExactly() {
    String v1 =
        "name: \"CaffeNet\"\ninput: \"data\"\ninput_dim: 10\ninput_dim: 3\ninput_dim: 227\n"
            + "input_dim: 227\nlayers {\n  name: \"conv1\"\n  type: CONVOLUTION\n"
            + "  bottom: \"data\"\n  top: \"conv1\"\n  blobs_lr: 1\n  blobs_lr: 2\n"
            + "  weight_decay: 1\n  weight_decay: 0\n"
            + "  convolution_param { num_output: 96 kernel_size: 11 stride: 4 }\n}\n"
            + "layers { name: \"relu1\" type: RELU bottom: \"conv1\" top: \"conv1\" }\n"
            + "layers { name: \"prob\" type: SOFTMAX bottom: \"conv1\" top: \"prob\" }\n";
    String expected =
        """
        name: "CaffeNet"
        layer {
          name: "input"
          type: "Input"
          top: "data"
          input_param {
            shape {
              dim: 10
              dim: 3
              dim: 227
              dim: 227
            }
          }
        }
        layer {
          name: "conv1"
          type: "Convolution"
          bottom: "data"
          top: "conv1"
          param {
            lr_mult: 1
            decay_mult: 1
          }
          param {
            lr_mult: 2
            decay_mult: 0
          }
          convolution_param {
            num_output: 96
            kernel_size: 11
            stride: 4
          }
        }
        layer {
          name: "relu1"
          type: "ReLU"
          bottom: "conv1"
          top: "conv1"
        }
        layer {
          name: "prob"
          type: "Softmax"
          bottom: "conv1"
          top: "prob"
        }
        """;
    NetUpgrade.Result r = net(v1);
    assertEquals(expected, TextFormat.print(r.net()));
    assertEquals(List.of("V1 layers", "net-level inputs"), r.notes());
  }

  @Test
  void inputShapesAndSeveralInputsBecomeOneInputLayerFirst() {
    NetUpgrade.Result r =
        net(
            "input: \"a\" input_shape { dim: 2 dim: 5 } input: \"b\" input_shape { dim: 2 }\n"
                + "layer { name: \"c\" type: \"Concat\" bottom: \"a\" bottom: \"b\" top: \"c\" }");
    assertEquals(
        "layer {\n  name: \"input\"\n  type: \"Input\"\n  top: \"a\"\n  top: \"b\"\n"
            + "  input_param {\n    shape {\n      dim: 2\n      dim: 5\n    }\n"
            + "    shape {\n      dim: 2\n    }\n  }\n}\n"
            + "layer {\n  name: \"c\"\n  type: \"Concat\"\n  bottom: \"a\"\n  bottom: \"b\"\n"
            + "  top: \"c\"\n}\n",
        TextFormat.print(r.net()));
    assertEquals(List.of("net-level inputs"), r.notes());
  }

  @Test
  void v1DataFieldsMoveIntoTransformParam() {
    NetUpgrade.Result r =
        net(
            "layers { name: \"d\" type: DATA top: \"data\" data_param { source: \"db\""
                + " batch_size: 8 scale: 0.5 mean_file: \"m.binaryproto\" crop_size: 4"
                + " mirror: true } }");
    assertEquals(
        "layer {\n  name: \"d\"\n  type: \"Data\"\n  top: \"data\"\n"
            + "  data_param {\n    source: \"db\"\n    batch_size: 8\n  }\n"
            + "  transform_param {\n    scale: 0.5\n    mean_file: \"m.binaryproto\"\n"
            + "    crop_size: 4\n    mirror: true\n  }\n}\n",
        TextFormat.print(r.net()));
    assertEquals(List.of("V1 data transformation fields", "V1 layers"), r.notes());
  }

  @Test
  void v1ParamNamesAndShareModesJoinTheRatesPerBlob() {
    NetUpgrade.Result r =
        net(
            "layers { name: \"ip\" type: INNER_PRODUCT param: \"w\" param: \"b\""
                + " blob_share_mode: PERMISSIVE blobs_lr: 1 weight_decay: 0.5 loss_weight: 2"
                + " include { phase: TRAIN } }");
    Message layer = r.net().child("layer");
    assertEquals(
        "param {\n  name: \"w\"\n  share_mode: PERMISSIVE\n  lr_mult: 1\n  decay_mult: 0.5\n}\n"
            + "param {\n  name: \"b\"\n}\nloss_weight: 2\ninclude {\n  phase: TRAIN\n}\n",
        TextFormat.print(layer).substring(TextFormat.print(layer).indexOf("param {")));
  }

  @Test
  void batchNormStatisticsGetZeroRatesUnlessAlreadyZero() {
    String old =
        "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"x\" top: \"x\""
            + " param { lr_mult: 1 } param { name: \"v\" } param { lr_mult: 0 decay_mult: 1 } }";
    NetUpgrade.Result r = net(old);
    assertEquals(List.of("BatchNorm parameters"), r.notes());
    List<String> params = new ArrayList<>();
    for (Field p : r.net().child("layer").all("param")) {
      params.add(TextFormat.print(p.message()).replace('\n', ' ').trim());
    }
    assertEquals(
        List.of(
            "lr_mult: 0 decay_mult: 0",
            "name: \"v\" lr_mult: 0 decay_mult: 0",
            "lr_mult: 0 decay_mult: 0"),
        params);
    String current =
        "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"x\" top: \"x\""
            + " param { lr_mult: 0 } param { lr_mult: 0 } param { lr_mult: 0 } }";
    Message m = TextFormat.parse(current, "t");
    NetUpgrade.Result same = NetUpgrade.of(m, "t");
    assertSame(m, same.net());
    assertEquals(List.of(), same.notes());
  }

  @Test
  void currentNetComesBackAsItIs() {
    for (String file :
        List.of("zoo/lenet_train_test.prototxt", "zoo/caffenet_train_val.prototxt")) {
      Message m = TextFormat.parse(resource(file), file);
      String before = TextFormat.print(m);
      NetUpgrade.Result r = NetUpgrade.of(m, file);
      assertSame(m, r.net(), file);
      assertEquals(List.of(), r.notes(), file);
      assertEquals(before, TextFormat.print(m), file + " must not change");
    }
  }

  @Test
  void solverTypeBecomesTypeAndEmbeddedNetsAreUpgraded() {
    List<String> enums = List.of("SGD", "NESTEROV", "ADAGRAD", "RMSPROP", "ADADELTA", "ADAM");
    List<String> names = List.of("SGD", "Nesterov", "AdaGrad", "RMSProp", "AdaDelta", "Adam");
    for (int i = 0; i < enums.size(); i++) {
      NetUpgrade.Result r =
          SolverUpgrade.of(
              TextFormat.parse("base_lr: 0.1\nsolver_type: " + enums.get(i) + "\nmax_iter: 3", "s"),
              "s");
      assertEquals(
          "base_lr: 0.1\ntype: \"" + names.get(i) + "\"\nmax_iter: 3\n", TextFormat.print(r.net()));
      assertEquals(List.of("solver_type"), r.notes());
    }
    String v1 = "layers { name: \"r\" type: RELU bottom: \"x\" top: \"x\" }";
    NetUpgrade.Result r =
        SolverUpgrade.of(
            TextFormat.parse(
                "train_net_param { "
                    + v1
                    + " } test_net_param { "
                    + v1
                    + " }"
                    + " test_net_param { input: \"x\" input_dim: 1 input_dim: 1 input_dim: 1"
                    + " input_dim: 1 }",
                "s"),
            "s");
    assertEquals(
        List.of(
            "train_net_param: V1 layers",
            "test_net_param: V1 layers",
            "test_net_param: net-level inputs"),
        r.notes());
    assertEquals("ReLU", r.net().child("train_net_param").child("layer").value("type", null));
  }

  @Test
  void badSolverTypesAreRejected() {
    IllegalArgumentException both =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                SolverUpgrade.of(
                    TextFormat.parse("type: \"Adam\"\nsolver_type: SGD", "solver.prototxt"),
                    "solver.prototxt"));
    assertEquals(
        "solver.prototxt, line 2, column 1: the solver has both the old solver_type and type (at"
            + " line 1, column 1); Caffe refuses both: keep only type",
        both.getMessage());
    IllegalArgumentException unknown =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                SolverUpgrade.of(
                    TextFormat.parse("solver_type: LBFGS", "s.prototxt"), "s.prototxt"));
    assertTrue(
        unknown.getMessage().startsWith("s.prototxt, line 1, column 1: unknown solver_type LBFGS"));
  }

  @Test
  void badOldFilesNameFileLineAndField() {
    assertTrue(
        bad("name: \"n\"\nlayers { name: \"c\" type: CONVOLUTIONAL }")
            .getMessage()
            .startsWith(
                "test.prototxt, V1 layer 'c', line 2, column 20: unknown V1 layer type"
                    + " CONVOLUTIONAL; a V1 'layers' block takes one of Caffe's V1 enum types"
                    + " [ABSVAL, ACCURACY,"));
    assertEquals(
        "test.prototxt, line 1, column 12: the net's inputs need 4 input_dim values (4 per input)"
            + " but the file has 3; give each input its full shape",
        bad("input: \"x\"\n  input_dim: 1 input_dim: 2 input_dim: 3".replace("\n  ", " "))
            .getMessage());
    assertTrue(
        bad("layers { name: \"c\" type: RELU blobs_lrr: 1 }")
            .getMessage()
            .contains("line 1, column 31: V1 field 'blobs_lrr' has no equivalent in a V2 layer"));
    assertTrue(
        bad("layer { name: \"a\" type: \"ReLU\" }\nlayers { name: \"b\" type: RELU }")
            .getMessage()
            .startsWith("test.prototxt, line 2, column 1: the net has both V1 'layers' and V2"));
    assertTrue(
        bad("input_dim: 1")
            .getMessage()
            .contains("net-level 'input_dim' without an 'input' naming the blob"));
  }

  @Test
  void badV0FilesNameFileLineAndField() {
    assertTrue(
        bad("layers { layer { name: \"r\" type: \"relu\" num_output: 3 } }")
            .getMessage()
            .contains(
                "V0 layer 'r', line 1, column 41: V0 field 'num_output' has no V1 equivalent"
                    + " for layer type \"relu\""));
    assertTrue(
        bad("layers { layer { name: \"x\" type: \"fancy\" } }")
            .getMessage()
            .contains("unknown V0 layer type \"fancy\""));
    assertTrue(
        bad("input: \"d\"\nlayers { layer { name: \"p\" type: \"padding\" pad: 1 } bottom: \"d\""
                + " top: \"p\" }\nlayers { layer { name: \"f\" type: \"innerproduct\" }"
                + " bottom: \"p\" top: \"f\" }")
            .getMessage()
            .contains("a V0 padding layer may only feed a conv or pool layer"));
    assertTrue(
        bad("layers { layer { name: \"r\" type: \"relu\" } bottom: \"nowhere\" }")
            .getMessage()
            .contains("bottom 'nowhere' is neither a net input nor an earlier top"));
  }

  /** Fields sorted by name (repeated fields keep their order), numbers compared by value. */
  static String canonical(Message m) {
    StringBuilder sb = new StringBuilder();
    canonical(m, sb, "");
    return sb.toString();
  }

  private static void canonical(Message m, StringBuilder sb, String indent) {
    List<Field> fields = new ArrayList<>(m.fields());
    fields.sort(Comparator.comparing(Field::name));
    for (Field f : fields) {
      sb.append(indent).append(f.name());
      if (f.isMessage()) {
        sb.append(" {\n");
        canonical(f.message(), sb, indent + "  ");
        sb.append(indent).append("}\n");
      } else {
        sb.append(": ")
            .append(f.quoted() ? "\"" + f.value() + "\"" : number(f.value()))
            .append('\n');
      }
    }
  }

  private static String number(String token) {
    try {
      return Double.toString(Double.parseDouble(token));
    } catch (NumberFormatException e) {
      return token;
    }
  }
}
