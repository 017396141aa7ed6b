package org.sparknet.bench.loop;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.apps.mnist.LeNet;
import org.sparknet.caffe.internal.TextFormat;

/**
 * The nets the benchmarks train: LeNet as the apps ship it, and two BVLC model-zoo nets (the
 * unchanged files of sparknet-caffe's test resources, copied onto this module's classpath under
 * {@code zoo/} by the POM) with their LMDB {@code Data} layers replaced by {@code Input} layers of
 * a chosen batch size, the only edit: CIFAR-10 quick (3x32x32) and CaffeNet, the AlexNet-sized
 * reference net (3x227x227, 60,965,224 parameters). Neither CIFAR-10 nor ImageNet is on this
 * machine: {@link #upscale} turns Fashion-MNIST images into inputs of the right shape.
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

  /** CIFAR-10 quick, batch 100 as in the zoo file, the zoo solver (SGD, lr 0.001, fixed). */
  public static BenchNet cifarQuick(long seed) {
    String net = withInputLayers(zoo("cifar10_quick_train_test.prototxt"), 3, 32, 100, 100);
    return new BenchNet(
        "CIFAR-10 quick",
        NetDefinition.caffe(zoo("cifar10_quick_solver.prototxt"), net, List.of(3, 32, 32))
            .withSeed(seed),
        3,
        32,
        100);
  }

  /** CaffeNet (AlexNet-sized, 61M parameters) with batch {@code batch} in both phases. */
  public static BenchNet alexNet(long seed, int batch) {
    String net = withInputLayers(zoo("caffenet_train_val.prototxt"), 3, 227, batch, batch);
    return new BenchNet(
        "AlexNet (CaffeNet)",
        NetDefinition.caffe(zoo("caffenet_solver.prototxt"), net, List.of(3, 227, 227))
            .withSeed(seed),
        3,
        227,
        batch);
  }

  /**
   * The net text with every {@code Data} layer replaced by an {@code Input} layer with the same
   * name, tops and phase, shaped [batch, channels, side, side] and [batch]: the crop, mirror and
   * mean image of the zoo files go with the Data layers (the inputs are fed at the cropped size).
   */
  static String withInputLayers(String netText, int channels, int side, int train, int test) {
    TextFormat.Message m = TextFormat.parse(netText, "zoo net");
    List<TextFormat.Field> fields = m.fields();
    for (int i = 0; i < fields.size(); i++) {
      TextFormat.Field f = fields.get(i);
      if (!f.name().equals("layer") || !"Data".equals(f.message().value("type", null))) {
        continue;
      }
      TextFormat.Message layer = f.message();
      TextFormat.Message include = layer.child("include");
      String phase = include == null ? null : include.value("phase", null);
      int batch = "TEST".equals(phase) ? test : train;
      StringBuilder text = new StringBuilder("layer {\n");
      text.append("  name: \"").append(layer.value("name", "data")).append("\"\n");
      text.append("  type: \"Input\"\n");
      for (String top : layer.values("top")) {
        text.append("  top: \"").append(top).append("\"\n");
      }
      if (phase != null) {
        text.append("  include { phase: ").append(phase).append(" }\n");
      }
      text.append(
          String.format(
              Locale.ROOT,
              "  input_param { shape { dim: %d dim: %d dim: %d dim: %d } shape { dim: %d } }%n",
              batch,
              channels,
              side,
              side,
              batch));
      text.append("}\n");
      fields.set(i, TextFormat.parse(text.toString(), "Input layer").first("layer"));
    }
    return TextFormat.print(m);
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
    try (InputStream in = BenchNets.class.getResourceAsStream("/zoo/" + name)) {
      if (in == null) {
        throw new IllegalStateException(
            "zoo/" + name + " is not on the classpath; build sparknet-bench with Maven");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
