package org.sparknet.api.net;

/** Builder nets shared by the builder's unit tests and sparknet-caffe's integration tests. */
public final class ExampleNets {
  private ExampleNets() {}

  /**
   * Caffe's LeNet (examples/mnist/lenet_train_test.prototxt) built with the builder: same layers,
   * names, fillers, learning-rate multipliers, batch sizes (64 train, 100 test) and input scale.
   */
  public static NetSpec lenet() {
    return NetSpec.named("LeNet")
        .add(
            InputLayer.named("mnist")
                .setShape(1, 28, 28)
                .setBatchSize(64)
                .optTestBatchSize(100)
                .optScale(0.00390625))
        .add(ConvLayer.named("conv1").setNumOutput(20).setKernel(5).optLrMult(1, 2))
        .add(PoolLayer.max("pool1").setKernel(2).optStride(2))
        .add(ConvLayer.named("conv2").setNumOutput(50).setKernel(5).optLrMult(1, 2))
        .add(PoolLayer.max("pool2").setKernel(2).optStride(2))
        .add(LinearLayer.named("ip1").setNumOutput(500).optLrMult(1, 2))
        .add(ActivationLayer.relu("relu1"))
        .add(LinearLayer.named("ip2").setNumOutput(10).optLrMult(1, 2))
        .add(Accuracy.named("accuracy"))
        .add(SoftmaxWithLoss.named("loss"));
  }

  /** Caffe's examples/mnist/lenet_solver.prototxt, less its file paths, testing and snapshots. */
  public static SolverSpec lenetSolver() {
    return SolverSpec.sgd(0.01)
        .optMomentum(0.9)
        .optWeightDecay(0.0005)
        .optInvPolicy(0.0001, 0.75)
        .optMaxIter(10000);
  }

  /**
   * A small net that touches every layer kind and the awkward window arithmetic: padded strided
   * convolution, a mean, a leaky ReLU, a rectangular grouped convolution, ceil-rounded pooling with
   * padding (where Caffe drops the last window), average and global pooling, dropout, sigmoid and
   * tanh. Input 1x28x28 (MNIST), 10 classes.
   */
  public static NetSpec windows(int batch) {
    return NetSpec.named("windows")
        .add(
            InputLayer.named("digits")
                .setShape(1, 28, 28)
                .setBatchSize(batch)
                .optMean(33.3)
                .optScale(0.00390625))
        // (28 + 2*2 - 5) / 2 + 1 = 14
        .add(ConvLayer.named("conv1").setNumOutput(8).setKernel(5).optStride(2).optPad(2))
        .add(ActivationLayer.relu("relu1").optNegativeSlope(0.1))
        // ceil((14 + 2*1 - 3) / 2) + 1 = 8 (rounded down it would be 7); (8-1)*2 = 14 < 14 + 1
        .add(PoolLayer.max("pool1").setKernel(3).optStride(2).optPad(1))
        // groups of 4: height (8 - 3) / 1 + 1 = 6, width (8 + 2*1 - 2) / 2 + 1 = 5
        .add(
            ConvLayer.named("conv2")
                .setNumOutput(12)
                .setKernel(3, 2)
                .optStride(1, 2)
                .optPad(0, 1)
                .optGroup(4))
        .add(ActivationLayer.tanh("tanh2"))
        // height ceil((6 + 2 - 2) / 3) + 1 = 3; width ceil((5 + 2 - 2) / 3) + 1 = 3, but the last
        // window would start in the padding ((3-1)*3 = 6 >= 5 + 1), so Caffe makes it 2
        .add(PoolLayer.ave("pool2").setKernel(2).optStride(3).optPad(1))
        .add(PoolLayer.max("global").optGlobal().optTop("pooled"))
        .add(LinearLayer.named("ip1").setNumOutput(16).optBottom("pool2"))
        .add(ActivationLayer.sigmoid("sig1"))
        .add(DropoutLayer.named("drop1").optRatio(0.25))
        .add(LinearLayer.named("ip2").setNumOutput(10))
        .add(Accuracy.named("accuracy"))
        .add(SoftmaxWithLoss.named("loss"));
  }
}
