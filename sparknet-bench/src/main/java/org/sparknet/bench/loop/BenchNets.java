package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.apps.data.ClasspathText;
import org.sparknet.apps.mnist.LeNet;
import org.sparknet.caffe.CaffeDataLayers;

/**
 * The nets the benchmarks train: LeNet as the apps ship it, and two BVLC model-zoo nets (the
 * unchanged files of sparknet-caffe's test resources, copied onto this module's classpath under
 * {@code zoo/} by the POM) with their LMDB {@code Data} layers replaced by {@code Input} layers of
 * a chosen batch size ({@link CaffeDataLayers#toInputLayers}), the only edit: CIFAR-10 quick
 * (3x32x32) and CaffeNet, the AlexNet-sized reference net (3x227x227, 60,965,224 parameters).
 * Neither CIFAR-10 nor ImageNet is on this machine: {@link #upscale} turns Fashion-MNIST images
 * into inputs of the right shape.
 */
public final class BenchNets {
  private BenchNets() {}

  /** A net with its name, per-example shape and train batch. */
  public record BenchNet(String name, NetDefinition definition, int channels, int side, int batch) {
    public int exampleSize() {
      return channels * side * side;
    }
  }

  public static BenchNet lenet(long seed, double lr) {
    return new BenchNet("LeNet", LeNet.definition(seed, lr), 1, 28, LeNet.TRAIN_BATCH);
  }

  /** LeNet as {@link #lenet(long, double)} with a train batch of {@code batch} (TEST keeps 100). */
  public static BenchNet lenet(long seed, double lr, int batch) {
    NetDefinition def = LeNet.definition(seed, lr);
    String input = "shape { dim: %d dim: 1 dim: 28 dim: 28 } shape { dim: %d }";
    String from = String.format(Locale.ROOT, input, LeNet.TRAIN_BATCH, LeNet.TRAIN_BATCH);
    String text = def.netText();
    if (text.indexOf(from) < 0 || text.indexOf(from) != text.lastIndexOf(from)) {
      throw new IllegalStateException("lenet.prototxt no longer has one TRAIN input: " + from);
    }
    String net = text.replace(from, String.format(Locale.ROOT, input, batch, batch));
    NetDefinition sized =
        new NetDefinition(
            def.engine(), def.solverText(), net, def.sampleShape(), def.seed(), def.device());
    return new BenchNet("LeNet", sized, 1, 28, batch);
  }

  /** CIFAR-10 quick, batch 100 as in the zoo file, the zoo solver (SGD, lr 0.001, fixed). */
  public static BenchNet cifarQuick(long seed) {
    return cifarQuick(seed, 100);
  }

  /** CIFAR-10 quick as {@link #cifarQuick(long)} with a train batch of {@code batch}. */
  public static BenchNet cifarQuick(long seed, int batch) {
    String net =
        CaffeDataLayers.toInputLayers(zoo("cifar10_quick_train_test.prototxt"), 3, 32, batch, 100);
    return new BenchNet(
        "CIFAR-10 quick",
        NetDefinition.caffe(zoo("cifar10_quick_solver.prototxt"), net, List.of(3, 32, 32))
            .withSeed(seed),
        3,
        32,
        batch);
  }

  /**
   * CaffeNet (AlexNet-sized, 61M parameters) with batch {@code batch} in both phases and the zoo
   * solver's learning rate set to 0: the benchmarks time its rounds and never ask what it learns,
   * and at the zoo's 0.01 it diverged to NaN within three rounds on resized Fashion-MNIST, which
   * ended the run. With rate 0 every step still runs the forward, backward and update passes.
   */
  public static BenchNet alexNet(long seed, int batch) {
    String net =
        CaffeDataLayers.toInputLayers(zoo("caffenet_train_val.prototxt"), 3, 227, batch, batch);
    String solver = zoo("caffenet_solver.prototxt").replace("base_lr: 0.01", "base_lr: 0");
    if (!solver.contains("base_lr: 0\n")) {
      throw new IllegalStateException("caffenet_solver.prototxt no longer has base_lr: 0.01");
    }
    return new BenchNet(
        "AlexNet (CaffeNet)",
        NetDefinition.caffe(solver, net, List.of(3, 227, 227)).withSeed(seed),
        3,
        227,
        batch);
  }

  /**
   * A Fashion-MNIST example (28x28, one channel) resized to {@code side} x {@code side} by nearest
   * neighbour and replicated into {@code channels} channels; the label is kept.
   */
  public static Example upscale(Example e, int channels, int side) {
    float[] in = e.features();
    int from = (int) Math.round(Math.sqrt(in.length));
    if (from * from != in.length) {
      throw new IllegalArgumentException(
          "Expected a square one-channel image but got " + in.length + " floats");
    }
    float[] out = new float[channels * side * side];
    for (int y = 0; y < side; y++) {
      int sy = y * from / side;
      for (int x = 0; x < side; x++) {
        out[y * side + x] = in[sy * from + x * from / side];
      }
    }
    for (int c = 1; c < channels; c++) {
      System.arraycopy(out, 0, out, c * side * side, side * side);
    }
    return new Example(out, e.label());
  }

  /**
   * The first {@code perPartition} examples of each partition, {@link #upscale upscaled} on the
   * executors (the closure captures only numbers, so no image data travels with the tasks).
   */
  public static JavaRDD<Example> resized(
      JavaRDD<Example> examples, int perPartition, int channels, int side) {
    return examples.mapPartitions(
        it -> {
          List<Example> out = new ArrayList<>();
          while (it.hasNext() && out.size() < perPartition) {
            out.add(upscale(it.next(), channels, side));
          }
          return out.iterator();
        },
        true);
  }

  static String zoo(String name) {
    return ClasspathText.read(
        BenchNets.class,
        "/zoo/" + name,
        "zoo/" + name + " is not on the classpath; build sparknet-bench with Maven");
  }
}
