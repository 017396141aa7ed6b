package org.sparknet.api.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;

/** The builder's text, shapes, parameter counts and every check it makes. */
class NetSpecTest {
  private static String resource(String name) throws IOException {
    try (InputStream in = NetSpecTest.class.getResourceAsStream(name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void lenetTextIsTheGoldenText() throws IOException {
    // golden: the zoo's lenet_train_test.prototxt with Input layers for its Data layers;
    // sparknet-caffe's NetSpecIT proves the two build the same net on Caffe
    assertEquals(resource("/net/lenet_builder.prototxt"), ExampleNets.lenet().toPrototxt());
  }

  @Test
  void lenetShapesAndParameterCounts() {
    NetSpec lenet = ExampleNets.lenet();
    assertEquals(431_080L, lenet.parameterCount());
    assertEquals(
        Map.of("conv1", 520L, "conv2", 25_050L, "ip1", 400_500L, "ip2", 5_010L),
        lenet.parameterCounts());
    assertEquals(
        List.of("conv1", "conv2", "ip1", "ip2"), List.copyOf(lenet.parameterCounts().keySet()));
    assertEquals(List.of(64, 1, 28, 28), lenet.shapeOf("data", Phase.TRAIN));
    assertEquals(List.of(100, 1, 28, 28), lenet.shapeOf("data", Phase.TEST));
    assertEquals(List.of(64, 20, 24, 24), lenet.shapeOf("conv1", Phase.TRAIN));
    assertEquals(List.of(64, 20, 12, 12), lenet.shapeOf("pool1", Phase.TRAIN));
    assertEquals(List.of(64, 50, 8, 8), lenet.shapeOf("conv2", Phase.TRAIN));
    assertEquals(List.of(100, 50, 4, 4), lenet.shapeOf("pool2", Phase.TEST));
    assertEquals(List.of(64, 500), lenet.shapeOf("ip1", Phase.TRAIN));
    assertEquals(List.of(100, 10), lenet.shapeOf("ip2", Phase.TEST));
    assertEquals(List.of(), lenet.shapeOf("accuracy", Phase.TEST));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> lenet.shapeOf("accuracy", Phase.TRAIN));
    assertTrue(e.getMessage().contains("no blob 'accuracy' in phase TRAIN"), e.getMessage());
  }

  @Test
  void padStrideAndCeilPoolingMatchHandComputedFigures() {
    NetSpec net = ExampleNets.windows(4);
    // figures worked out in ExampleNets.windows with Caffe's formulas
    assertEquals(List.of(4, 8, 14, 14), net.shapeOf("conv1", Phase.TRAIN));
    assertEquals(List.of(4, 8, 8, 8), net.shapeOf("pool1", Phase.TRAIN));
    assertEquals(List.of(4, 12, 6, 5), net.shapeOf("conv2", Phase.TRAIN));
    assertEquals(List.of(4, 12, 3, 2), net.shapeOf("pool2", Phase.TRAIN));
    assertEquals(List.of(4, 12, 1, 1), net.shapeOf("pooled", Phase.TRAIN));
    // conv1 8*1*5*5+8, conv2 12*(8/4)*3*2+12 (groups), ip1 (12*3*2)*16+16, ip2 16*10+10
    assertEquals(
        Map.of("conv1", 208L, "conv2", 156L, "ip1", 1_168L, "ip2", 170L), net.parameterCounts());
    assertEquals(1_702L, net.parameterCount());
  }

  @Test
  void poolingDropsAWindowThatWouldStartInThePadding() {
    // width 4, kernel 2, stride 3, pad 1: ceil((4 + 2 - 2) / 3) + 1 = 3, but (3-1)*3 = 6 >= 4 + 1
    NetSpec net =
        NetSpec.named("p")
            .add(InputLayer.named("in").setShape(1, 4, 4).setBatchSize(2))
            .add(PoolLayer.max("pool").setKernel(2).optStride(3).optPad(1))
            .add(PoolLayer.ave("unpadded").setKernel(3).optStride(2).optBottom("data"));
    assertEquals(List.of(2, 1, 2, 2), net.shapeOf("pool", Phase.TRAIN));
    // no padding: ceil((4 - 3) / 2) + 1 = 2 where a convolution would give 1
    assertEquals(List.of(2, 1, 2, 2), net.shapeOf("unpadded", Phase.TRAIN));
  }

  @Test
  void summaryListsEveryLayerWithShapeAndParameters() {
    String s = ExampleNets.lenet().toString();
    assertTrue(s.startsWith("NetSpec 'LeNet': 10 layers, 431,080 parameters"), s);
    assertTrue(s.matches("(?s).*\\n  conv2 +Convolution +conv2 +\\[64, 50, 8, 8] +25,050\\n.*"), s);
    assertTrue(s.matches("(?s).*\\n  accuracy +Accuracy \\(TEST\\) +accuracy +\\[] +0\\n.*"), s);
    assertTrue(s.matches("(?s).*\\n  total +431,080\\n$"), s);
    assertEquals(14, s.lines().count(), s); // title, header, 11 rows (label on its own), total
  }

  @Test
  void definitionCarriesTextSampleShapeAndSeed() {
    NetSpec lenet = ExampleNets.lenet();
    NetDefinition d = lenet.toNetDefinition(ExampleNets.lenetSolver().optRandomSeed(42));
    assertEquals("caffe", d.engine());
    assertEquals(lenet.toPrototxt(), d.netText());
    assertEquals(ExampleNets.lenetSolver().optRandomSeed(42).toPrototxt(), d.solverText());
    assertEquals(List.of(1, 28, 28), d.sampleShape());
    assertEquals(42L, d.seed());
    assertEquals("cpu", d.device());
    assertEquals(0L, lenet.toNetDefinition(ExampleNets.lenetSolver()).seed());
  }

  @Test
  void defaultsAndOverridesOfBottomsAndTops() {
    NetSpec net =
        NetSpec.named("n")
            .add(InputLayer.named("in").setShape(3, 8, 8).setBatchSize(2).optLabel("y"))
            .add(ConvLayer.named("c").setNumOutput(4).setKernel(3).optBiasTerm(false))
            .add(ActivationLayer.relu("r").optTop("r_out"))
            .add(LinearLayer.named("fc").setNumOutput(5).optBottom("c"))
            .add(SoftmaxWithLoss.named("loss"));
    String text = net.toPrototxt();
    assertTrue(text.contains("bottom: \"c\"\n  top: \"r_out\""), text);
    assertTrue(text.contains("name: \"fc\"\n  type: \"InnerProduct\"\n  bottom: \"c\""), text);
    assertTrue(text.contains("bottom: \"fc\"\n  bottom: \"y\"\n  top: \"loss\""), text);
    assertTrue(text.contains("num_output: 4\n    bias_term: false\n    kernel_size: 3"), text);
    assertEquals(1, text.split("bias_filler", -1).length - 1, "no bias filler without a bias");
    assertEquals(4L * 3 * 3 * 3, net.parameterCounts().get("c"));
    // one batch size for both phases: one Input layer, no include
    assertTrue(
        text.startsWith(
            "name: \"n\"\nlayer {\n  name: \"in\"\n  type: \"Input\"\n  top: \"data\"\n  top: \"y\"\n  input_param"),
        text);
  }

  @Test
  void meanScaleAndLeakyReluAreWritten() {
    String text =
        NetSpec.named("m")
            .add(InputLayer.named("in").setShape(3, 4, 4).setBatchSize(2).optMean(1, 2, 3.5))
            .add(ActivationLayer.relu("r").optNegativeSlope(0.01))
            .add(LinearLayer.named("fc").setNumOutput(3))
            .add(SoftmaxWithLoss.named("loss"))
            .toPrototxt();
    assertTrue(
        text.contains(
            "transform_param {\n    mean_value: 1\n    mean_value: 2\n    mean_value: 3.5\n  }"),
        text);
    assertTrue(text.contains("relu_param {\n    negative_slope: 0.01\n  }"), text);
    assertTrue(
        ExampleNets.windows(2).toPrototxt().contains("scale: 0.00390625\n    mean_value: 33.3\n"));
  }

  // ------------------------------------------------------------------ checks

  private static NetSpec input() {
    return NetSpec.named("t").add(InputLayer.named("in").setShape(1, 28, 28).setBatchSize(8));
  }

  private static void rejects(Executable build, String... fragments) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, build);
    for (String f : fragments) {
      assertTrue(e.getMessage().contains(f), "expected '" + f + "' in: " + e.getMessage());
    }
  }

  @Test
  void duplicateLayerNamesAreRejected() {
    NetSpec net = input().add(ConvLayer.named("c").setNumOutput(2).setKernel(3));
    rejects(
        () -> net.add(ConvLayer.named("c").setNumOutput(2).setKernel(3)),
        "net 't' has two layers named 'c' (#2 and #3)");
    assertEquals(2, net.layers().size(), "a rejected layer is not added");
  }

  @Test
  void duplicateTopsAreRejected() {
    NetSpec net = input().add(ConvLayer.named("c1").setNumOutput(2).setKernel(3));
    rejects(
        () -> net.add(ConvLayer.named("c2").setNumOutput(2).setKernel(3).optTop("data")),
        "layer 'c2' (Convolution): top 'data' is already produced by layer 'in'");
    rejects(
        () -> net.add(ConvLayer.named("c3").setNumOutput(2).setKernel(3).optTop("c1")),
        "layer 'c3' (Convolution): top 'c1' is also its bottom; only activations and dropout");
  }

  @Test
  void bottomsMustBeProducedEarlierInTheSamePhase() {
    rejects(
        () -> input().add(LinearLayer.named("fc").setNumOutput(2).optBottom("nope")),
        "layer 'fc' (InnerProduct) in phase TRAIN reads bottom 'nope' that no earlier layer",
        "[data, label]");
    NetSpec net = input().add(LinearLayer.named("fc").setNumOutput(10)).add(Accuracy.named("acc"));
    rejects(
        () -> net.add(ActivationLayer.relu("r").optBottom("acc")),
        "layer 'r' (ReLU) in phase TRAIN reads bottom 'acc'");
    rejects(
        () -> NetSpec.named("x").add(ConvLayer.named("c").setNumOutput(2).setKernel(3)),
        "layer 'c' (Convolution) needs a previous layer's top but none comes before it");
    rejects(
        () ->
            NetSpec.named("x")
                .add(InputLayer.named("in").setShape(4).setBatchSize(2).optWithoutLabel())
                .add(LinearLayer.named("fc").setNumOutput(2))
                .add(SoftmaxWithLoss.named("loss")),
        "layer 'loss' (SoftmaxWithLoss) needs a label blob");
  }

  @Test
  void nonPositiveSizesAreRejectedWhereTheyAreSet() {
    rejects(
        () -> ConvLayer.named("c").setNumOutput(0),
        "layer 'c' (Convolution): field 'num_output' must be positive but was 0");
    rejects(() -> ConvLayer.named("c").setKernel(0), "field 'kernel' must be positive but was 0");
    rejects(() -> ConvLayer.named("c").optStride(-1), "field 'stride' must be positive");
    rejects(() -> ConvLayer.named("c").optPad(-1), "field 'pad' must be >= 0 but was -1");
    rejects(() -> ConvLayer.named("c").optGroup(0), "field 'group' must be positive");
    rejects(() -> PoolLayer.max("p").setKernel(2, 0), "layer 'p' (Pooling): field 'kernel'");
    rejects(
        () -> LinearLayer.named("fc").setNumOutput(-3),
        "layer 'fc' (InnerProduct): field 'num_output' must be positive but was -3");
    rejects(
        () -> InputLayer.named("in").setBatchSize(0),
        "layer 'in' (Input): field 'batch_size' must be positive");
    rejects(
        () -> InputLayer.named("in").setShape(1, 0, 28),
        "field 'shape' must be positive but was 0");
    rejects(() -> InputLayer.named("in").optScale(0), "field 'scale' must be a positive number");
    rejects(
        () -> DropoutLayer.named("d").optRatio(1.0),
        "layer 'd' (Dropout): field 'dropout_ratio' must lie in [0, 1)");
    rejects(() -> Accuracy.named("a").optTopK(0), "field 'top_k' must be positive");
    rejects(
        () ->
            NetSpec.named("x")
                .add(InputLayer.named("in").setShape(3, 2, 2).setBatchSize(1).optMean(1, 2)),
        "layer 'in' (Input): field 'mean_value' has 2 values but the data has 3 channels");
    rejects(
        () -> ActivationLayer.tanh("t").optNegativeSlope(0.1),
        "layer 't' (TanH): field 'negative_slope' belongs to ReLU only");
    rejects(
        () -> ConvLayer.named("c").optLrMult(-1, 2),
        "field 'lr_mult' must be a finite number >= 0");
  }

  @Test
  void requiredFieldsAreNamed() {
    rejects(
        () -> input().add(ConvLayer.named("c").setKernel(3)),
        "layer 'c' (Convolution): field 'num_output' is required: call setNumOutput(n)");
    rejects(
        () -> input().add(ConvLayer.named("c").setNumOutput(3)),
        "field 'kernel' is required: call setKernel(size)");
    rejects(
        () -> input().add(PoolLayer.max("p")), "layer 'p' (Pooling): field 'kernel' is required");
    rejects(
        () -> NetSpec.named("x").add(InputLayer.named("in").setBatchSize(2)),
        "layer 'in' (Input): field 'shape' is required");
    rejects(
        () -> NetSpec.named("x").add(InputLayer.named("in").setShape(2)),
        "field 'batch_size' is required");
  }

  @Test
  void kernelsLargerThanTheInputAreRejected() {
    rejects(
        () -> input().add(ConvLayer.named("c").setNumOutput(2).setKernel(29)),
        "net 't', layer 'c' (Convolution): field 'kernel' (29) is larger than the input height 28 of bottom 'data'");
    // padding makes room: 28 + 2*1 >= 30
    input().add(ConvLayer.named("ok").setNumOutput(2).setKernel(30).optPad(1));
    rejects(
        () -> input().add(ConvLayer.named("c").setNumOutput(2).setKernel(5, 31)),
        "field 'kernel' ([5, 31]) is larger than the input width 28");
    NetSpec small = input().add(PoolLayer.max("p1").setKernel(4).optStride(4)); // 7x7
    rejects(
        () -> small.add(PoolLayer.max("p2").setKernel(8)),
        "layer 'p2' (Pooling): field 'kernel' (8) is larger than the input height 7");
    rejects(
        () -> input().add(PoolLayer.max("p").setKernel(2).optPad(2)),
        "layer 'p' (Pooling): field 'pad' (2) must be smaller than the kernel (2)");
  }

  @Test
  void shapeMismatchesThatCaffeWouldAbortOnAreRejected() {
    rejects(
        () ->
            input()
                .add(LinearLayer.named("fc").setNumOutput(10))
                .add(ConvLayer.named("c").setNumOutput(2).setKernel(1)),
        "layer 'c' (Convolution): needs a 4-D input [N, C, H, W] but bottom 'fc' has shape [8, 10]");
    rejects(
        () ->
            input()
                .add(ConvLayer.named("c").setNumOutput(10).setKernel(5))
                .add(SoftmaxWithLoss.named("loss")),
        "layer 'loss' (SoftmaxWithLoss): the prediction [8, 10, 24, 24] makes 4608 predictions",
        "the label [8] has 8 values");
    rejects(
        () ->
            input()
                .add(LinearLayer.named("fc").setNumOutput(10))
                .add(Accuracy.named("acc").optTopK(11)),
        "layer 'acc' (Accuracy): field 'top_k' (11) exceeds the number of classes (10) (phase TEST)");
    rejects(
        () -> input().add(ConvLayer.named("c").setNumOutput(4).setKernel(3).optGroup(3)),
        "field 'group' (3) must divide the input channels (1) and num_output (4)");
    rejects(
        () ->
            input()
                .add(InputLayer.named("in2").setShape(3).setBatchSize(9).optTop("x").optLabel("y")),
        "layer 'in2' (Input): batch size 9 in phase TRAIN differs from the 8 of an earlier input");
  }

  @Test
  void aNetNeedsAnInputAndALossToBeWritten() {
    rejects(() -> NetSpec.named("empty").toPrototxt(), "net 'empty' has no input layer");
    NetSpec noLoss = input().add(LinearLayer.named("fc").setNumOutput(10));
    rejects(noLoss::toPrototxt, "net 't' has no loss layer in phase TRAIN");
    rejects(() -> noLoss.toNetDefinition(SolverSpec.sgd(0.1)), "has no loss layer");
    NetSpec testLoss =
        input()
            .add(LinearLayer.named("fc").setNumOutput(10))
            .add(SoftmaxWithLoss.named("loss").optPhase(Phase.TEST));
    rejects(testLoss::toPrototxt, "has no loss layer in phase TRAIN");
    // without a loss the summary still prints
    assertTrue(noLoss.toString().contains("fc"), noLoss.toString());
  }

  @Test
  void namesMustBeUsable() {
    rejects(() -> ConvLayer.named(" c"), "A layer name must be non-blank");
    rejects(() -> NetSpec.named(" "), "A net name must not be blank");
    rejects(
        () -> ConvLayer.named("c").optBottom(),
        "layer 'c' (Convolution): optBottom needs at least one blob");
    rejects(() -> ConvLayer.named("c").optTop(""), "top blob names must be non-blank");
    rejects(
        () -> input().add(SoftmaxWithLoss.named("loss").optBottom("data")),
        "layer 'loss' (SoftmaxWithLoss): takes 2 bottom(s) but optBottom gave [data]");
  }
}
