package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.net.Accuracy;
import org.sparknet.api.net.ActivationLayer;
import org.sparknet.api.net.ConvLayer;
import org.sparknet.api.net.DropoutLayer;
import org.sparknet.api.net.ExampleNets;
import org.sparknet.api.net.Filler;
import org.sparknet.api.net.InputLayer;
import org.sparknet.api.net.LinearLayer;
import org.sparknet.api.net.NetSpec;
import org.sparknet.api.net.PoolLayer;
import org.sparknet.api.net.SoftmaxWithLoss;
import org.sparknet.api.net.SolverSpec;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

/**
 * The Java builder's text on real Caffe and real MNIST digits: the builder's LeNet is the zoo's
 * LeNet (same weights, same outputs, same training), the builder's shape inference is Caffe's, a
 * small builder net learns with every solver type, and bad builder nets are refused in Java.
 */
class NetSpecIT {
  private static MnistDigits digits;

  @BeforeAll
  static void loadDigits() {
    digits = MnistDigits.load(7).range(0, 2000);
  }

  @Test
  void builderLeNetIsTheZooLeNet() {
    // the builder's definition takes the same path as user prototxt, dry run included
    NetDefinition built = ExampleNets.lenet().toNetDefinition(ExampleNets.lenetSolver());
    try (CaffeNet zoo = CaffeNet.create(Zoo.lenet(), false);
        CaffeNet net = CaffeNet.create(built, true)) {
      assertEquals(zoo.inputShapes(Phase.TRAIN), net.inputShapes(Phase.TRAIN));
      assertEquals(zoo.inputShapes(Phase.TEST), net.inputShapes(Phase.TEST));
      WeightCollection zw = zoo.getWeights();
      WeightCollection bw = net.getWeights();
      assertEquals(List.of("conv1", "conv2", "ip1", "ip2"), bw.layerNames());
      assertNull(zw.structureDifference(bw), "same layer names and shapes");
      assertEquals(431_080L, bw.numFloats());
      // same seed, same fillers in the same order: the same initial weights, not just shapes
      assertTrue(zw.allClose(bw, 0, 0), zw.differenceFrom(bw, 0, 0));

      // with the weights set from the zoo net, identical outputs on real digits
      net.setWeights(zw);
      Map<String, NDArray> a = zoo.forward(new DigitFeeder(digits, 3, false), List.of("ip2"));
      Map<String, NDArray> b = net.forward(new DigitFeeder(digits, 3, false), List.of("ip2"));
      try {
        assertEquals(Shape.of(100, 10), b.get("ip2").shape());
        NDAssert.assertAllClose(a.get("ip2"), b.get("ip2"), Tolerance.EXACT);
      } finally {
        a.values().forEach(NDArray::close);
        b.values().forEach(NDArray::close);
      }
      assertEquals(
          zoo.test(2, new DigitFeeder(digits, 4, false)),
          net.test(2, new DigitFeeder(digits, 4, false)));

      // and the builder's solver is lenet_solver: the same steps give the same weights
      DigitFeeder fa = new DigitFeeder(digits, 5, true);
      DigitFeeder fb = new DigitFeeder(digits, 5, true);
      for (int i = 0; i < 3; i++) {
        assertEquals(zoo.train(1, fa), net.train(1, fb), "loss of step " + i);
      }
      WeightCollection after = net.getWeights();
      assertTrue(zoo.getWeights().allClose(after, 0, 0), "weights after 3 steps");
      assertTrue(!after.allClose(zw, 0, 0), "the steps changed the weights");
    }
  }

  @Test
  void builderShapesAreCaffeShapes() {
    NetSpec spec = ExampleNets.windows(4);
    NetDefinition def = spec.toNetDefinition(SolverSpec.sgd(0.01));
    List<String> blobs =
        List.of("data", "conv1", "pool1", "conv2", "pool2", "pooled", "ip1", "ip2");
    try (CaffeNet net = CaffeNet.create(def, false)) {
      Map<String, NDArray> out = net.forward(new DigitFeeder(digits, 1, false), blobs);
      try {
        for (String blob : blobs) {
          List<Integer> expected = spec.shapeOf(blob, Phase.TEST);
          int[] dims = expected.stream().mapToInt(Integer::intValue).toArray();
          assertEquals(Shape.of(dims), out.get(blob).shape(), blob);
        }
        // the hand-computed figures of ExampleNets.windows, as Caffe computes them
        assertEquals(Shape.of(4, 8, 8, 8), out.get("pool1").shape());
        assertEquals(Shape.of(4, 12, 3, 2), out.get("pool2").shape());
      } finally {
        out.values().forEach(NDArray::close);
      }
      assertEquals(spec.parameterCount(), net.getWeights().numFloats());
      assertEquals(new ArrayList<>(spec.parameterCounts().keySet()), net.getWeights().layerNames());
    }
  }

  /** Every option the builder writes, in net and solver, is text that NetPlan and Caffe take. */
  @Test
  void everyOptionIsAcceptedByCaffe() {
    NetSpec net =
        NetSpec.named("options")
            .add(
                InputLayer.named("in")
                    .setShape(1, 28, 28)
                    .setBatchSize(4)
                    .optTestBatchSize(2)
                    .optMean(128)
                    .optScale(1 / 128.0))
            .add(
                ConvLayer.named("conv")
                    .setNumOutput(4)
                    .setKernel(5)
                    .optBiasTerm(false)
                    .optWeightFiller(Filler.msra())
                    .optLrMult(1, 0))
            .add(DropoutLayer.named("drop"))
            .add(PoolLayer.ave("pool").optGlobal())
            .add(
                LinearLayer.named("ip")
                    .setNumOutput(10)
                    .optWeightFiller(Filler.gaussian(0.01))
                    .optBiasFiller(Filler.uniform(-0.1, 0.1)))
            .add(ActivationLayer.tanh("tanh").optTop("scores"))
            .add(Accuracy.named("top2").optTopK(2).optPhase(null))
            .add(SoftmaxWithLoss.named("loss"));
    List<SolverSpec> solvers =
        List.of(
            SolverSpec.adam(0.001)
                .optMomentum2(0.99)
                .optDelta(1e-7)
                .optWeightDecay(1e-4)
                .optRegularization(SolverSpec.Regularization.L1)
                .optClipGradients(5)
                .optIterSize(2)
                .optMaxIter(100)
                .optTestIter(1)
                .optTestInterval(10)
                .optRandomSeed(3),
            SolverSpec.rmsProp(0.01).optRmsDecay(0.9).optDelta(1e-6).optStepPolicy(0.5, 10),
            SolverSpec.nesterov(0.01).optMomentum(0.9).optExpPolicy(0.99),
            SolverSpec.adaGrad(0.01).optMultistepPolicy(0.1, 5, 10),
            SolverSpec.sgd(0.01).optPolyPolicy(2).optMaxIter(100),
            SolverSpec.adaDelta(1).optSigmoidPolicy(-0.1, 50));
    for (SolverSpec solver : solvers) {
      try (CaffeNet c = CaffeNet.create(net.toNetDefinition(solver), false)) {
        assertEquals(Shape.of(2, 1, 28, 28), c.inputShapes(Phase.TEST).get("data"));
        assertTrue(Float.isFinite(c.train(1, new DigitFeeder(digits, 1, false))), solver::toString);
        assertEquals(net.parameterCount(), c.getWeights().numFloats());
      }
    }
  }

  private static SolverSpec solver(SolverSpec.Type type) {
    return switch (type) {
      case SGD -> SolverSpec.sgd(0.05).optMomentum(0.9);
      case NESTEROV -> SolverSpec.nesterov(0.05).optMomentum(0.9);
      case ADAGRAD -> SolverSpec.adaGrad(0.05);
      case RMSPROP -> SolverSpec.rmsProp(0.005);
      case ADADELTA -> SolverSpec.adaDelta(1.0);
      case ADAM -> SolverSpec.adam(0.005);
    };
  }

  /** conv 8x5x5 stride 2, ReLU, max pool, ip 10: 3,098 parameters, a few ms a step. */
  private static NetSpec small() {
    return NetSpec.named("small")
        .add(InputLayer.named("digits").setShape(1, 28, 28).setBatchSize(32).optScale(1 / 256.0))
        .add(ConvLayer.named("conv").setNumOutput(8).setKernel(5).optStride(2))
        .add(ActivationLayer.relu("relu"))
        .add(PoolLayer.max("pool").setKernel(2).optStride(2))
        .add(LinearLayer.named("ip").setNumOutput(10))
        .add(SoftmaxWithLoss.named("loss"));
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(SolverSpec.Type.class)
  void smallBuilderNetLearnsDigitsWithEverySolverType(SolverSpec.Type type) {
    NetSpec spec = small();
    assertEquals(3_098L, spec.parameterCount());
    NetDefinition def = spec.toNetDefinition(solver(type).optRandomSeed(11));
    try (CaffeNet net = CaffeNet.create(def, false)) {
      DigitFeeder feeder = new DigitFeeder(digits, 2, true);
      int steps = 60;
      float[] loss = new float[steps];
      for (int i = 0; i < steps; i++) {
        loss[i] = net.train(1, feeder);
      }
      double first = mean(loss, 0, 5);
      double last = mean(loss, steps - 10, steps);
      System.out.printf("%s: loss %.3f (first 5 steps) -> %.3f (last 10)%n", type, first, last);
      assertTrue(first > 1.8, type + ": starts near ln 10 = 2.30, got " + first);
      assertTrue(last < 0.6 * first, type + ": loss " + first + " -> " + last);
    }
  }

  private static double mean(float[] v, int from, int to) {
    double s = 0;
    for (int i = from; i < to; i++) {
      s += v[i];
    }
    return s / (to - from);
  }

  @Test
  void badBuilderNetsAreRefusedAndTheJvmLives() {
    // a kernel larger than its input: Caffe would abort the JVM; the builder refuses at add()
    NetSpec spec =
        NetSpec.named("bad").add(InputLayer.named("in").setShape(1, 28, 28).setBatchSize(8));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> spec.add(ConvLayer.named("conv").setNumOutput(4).setKernel(29)));
    assertTrue(e.getMessage().contains("layer 'conv' (Convolution)"), e.getMessage());
    assertTrue(
        e.getMessage().contains("field 'kernel' (29) is larger than the input"), e.getMessage());

    // a label the builder's 10-class net cannot take: NetPlan found the class count in the
    // builder's text, exactly as in user prototxt, and rejects the batch before Caffe sees it
    try (CaffeNet net = CaffeNet.create(small().toNetDefinition(SolverSpec.sgd(0.01)), false)) {
      assertEquals(Shape.of(32), net.inputShapes(Phase.TRAIN).get("label"));
      IllegalArgumentException label =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  net.train(
                      1,
                      in -> {
                        new DigitFeeder(digits, 1, false).fill(in);
                        in.get("label").setFlat(3, 10f);
                      }));
      assertTrue(label.getMessage().contains("[0, 10)"), label.getMessage());
      assertEquals(0, net.iteration(), "no step ran on the bad batch");
      // the JVM and Caffe live on: the same net trains on good data
      assertTrue(Float.isFinite(net.train(1, new DigitFeeder(digits, 1, false))));
    }
  }
}
