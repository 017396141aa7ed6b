package org.sparknet.caffe.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Stream;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.PointerScope;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The Java upgrade against Caffe's own, native {@code UpgradeNetAsNeeded} and {@code
 * UpgradeSolverAsNeeded} (the presets' Caffe 1.0): for every old file both are parsed by Caffe and
 * printed with protobuf's DebugString, which must be equal. Only files Caffe upgrades without a
 * fatal error are given to it (a LOG(FATAL) would end the JVM).
 *
 * <p>A Java upgrader that swapped blobs_lr and weight_decay (lr_mult from weight_decay) failed 9 of
 * the 13 cases; one that left out BatchNorm's decay_mult: 0 failed the BatchNorm case.
 */
class UpgradeOracleIT {
  static Stream<Arguments> oldNets() {
    String consolidated = NetUpgradeTest.resource("upgrade/lenet_consolidated_solver.prototxt");
    Message solver = TextFormat.parse(consolidated, "consolidated");
    return Stream.of(
        Arguments.of(
            "lenet_consolidated_solver net_param", TextFormat.print(solver.child("net_param"))),
        Arguments.of(
            "lenet_v1_deploy", NetUpgradeTest.resource("upgrade/lenet_v1_deploy.prototxt")),
        caffeTest("NetUpgradeTest_TestSimple.v0_proto"),
        caffeTest("NetUpgradeTest_TestSimple.expected_v1_proto"),
        caffeTest("NetUpgradeTest_TestImageNet.v0_proto"),
        caffeTest("NetUpgradeTest_TestImageNet.expected_v1_proto"),
        caffeTest("NetUpgradeTest_TestAllParams.input_proto"),
        caffeTest("PaddingLayerUpgradeTest_TestTwoTops.input_proto"),
        Arguments.of(
            "V1 data fields",
            "layers { name: \"d\" type: IMAGE_DATA top: \"data\" image_data_param { source: \"x\""
                + " batch_size: 8 scale: 0.5 mean_file: \"m\" crop_size: 4 mirror: true } }"),
        Arguments.of(
            "V1 param names and share modes",
            "layers { name: \"ip\" type: INNER_PRODUCT param: \"w\" param: \"b\""
                + " blob_share_mode: PERMISSIVE blob_share_mode: STRICT blobs_lr: 1"
                + " weight_decay: 0.5 weight_decay: 0 loss_weight: 2 include { phase: TRAIN } }"),
        Arguments.of(
            "input_shape, two inputs",
            "input: \"a\" input_shape { dim: 2 dim: 5 } input: \"b\" input_shape { dim: 2 }\n"
                + "layer { name: \"c\" type: \"Concat\" bottom: \"a\" bottom: \"b\" top: \"c\" }"),
        Arguments.of(
            "BatchNorm triple",
            "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"x\" top: \"x\" param { lr_mult: 1 }"
                + " param { name: \"v\" } param { lr_mult: 0 decay_mult: 1 } }"));
  }

  private static Arguments caffeTest(String name) {
    return Arguments.of(name, NetUpgradeTest.resource("upgrade/caffe-tests/" + name + ".prototxt"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("oldNets")
  void javaUpgradeEqualsCaffes(String name, String text) {
    NetUpgrade.Result java = NetUpgrade.of(TextFormat.parse(text, name), name);
    assertTrue(java.upgraded(), name);
    try (PointerScope scope = new PointerScope()) {
      NetParameter byCaffe = new NetParameter();
      CaffeRuntime.readText(text, byCaffe, name);
      assertTrue(caffe.NetNeedsUpgrade(byCaffe), name);
      caffe.UpgradeNetAsNeeded(name, byCaffe);
      NetParameter byJava = new NetParameter();
      CaffeRuntime.readText(TextFormat.print(java.net()), byJava, name + " upgraded");
      assertEquals(byCaffe.DebugString().getString(), byJava.DebugString().getString(), name);
      // Caffe flags every BatchNorm with three param blocks, upgraded or not
      if (!name.startsWith("BatchNorm")) {
        assertFalse(caffe.NetNeedsUpgrade(byJava), name);
      }
    }
  }

  @Test
  void solverTypeUpgradeEqualsCaffes() {
    for (String type : SolverUpgrade.TYPES.keySet()) {
      String text = "base_lr: 0.01\nsolver_type: " + type + "\nlr_policy: \"fixed\"\n";
      Message upgraded = SolverUpgrade.of(TextFormat.parse(text, type), type).net();
      try (PointerScope scope = new PointerScope()) {
        SolverParameter byCaffe = new SolverParameter();
        CaffeRuntime.readText(text, byCaffe, type);
        caffe.UpgradeSolverAsNeeded(type, byCaffe);
        SolverParameter byJava = new SolverParameter();
        CaffeRuntime.readText(TextFormat.print(upgraded), byJava, type);
        assertEquals(byCaffe.DebugString().getString(), byJava.DebugString().getString(), type);
      }
    }
    assertEquals(
        List.of("ADADELTA", "ADAGRAD", "ADAM", "NESTEROV", "RMSPROP", "SGD"),
        SolverUpgrade.TYPES.keySet().stream().sorted().toList());
  }
}
