package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * Caffe's {@code Convolution}: output size {@code (in + 2 pad - kernel) / stride + 1}, rounded
 * down; {@code numOutput * (channels / group) * kh * kw} weights plus {@code numOutput} biases.
 */
public final class ConvLayer extends WeightedLayer<ConvLayer> implements WindowedLayer<ConvLayer> {
  private final Window window = new Window();
  private Integer group;

  private ConvLayer(String name) {
    super(name, "Convolution");
  }

  public static ConvLayer named(String name) {
    return new ConvLayer(name);
  }

  @Override
  Window window() {
    return window;
  }

  /** Grouped convolution: input and output channels split into {@code groups}; default 1. */
  public ConvLayer optGroup(int groups) {
    this.group = positive("group", groups);
    return this;
  }

  @Override
  void checkComplete() {
    super.checkComplete();
    required("kernel", window.kernel, "setKernel(size)");
  }

  private int groups() {
    return group == null ? 1 : group;
  }

  @Override
  List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    List<Integer> in = image(inputs.get(0), names.get(0));
    int c = in.get(1);
    if (c % groups() != 0 || numOutput % groups() != 0) {
      throw fail(
          "field 'group' ("
              + groups()
              + ") must divide the input channels ("
              + c
              + ") and num_output ("
              + numOutput
              + ")");
    }
    Window.checkFits(this, window.kernel, window.pad, in.get(2), in.get(3), names.get(0));
    int h = (in.get(2) + 2 * window.pad[0] - window.kernel[0]) / window.stride[0] + 1;
    int w = (in.get(3) + 2 * window.pad[1] - window.kernel[1]) / window.stride[1] + 1;
    return List.of(shape(in.get(0), numOutput, h, w));
  }

  @Override
  long parameterCount(List<List<Integer>> inputs) {
    long c = inputs.get(0).get(1);
    return (long) numOutput * (c / groups()) * window.kernel[0] * window.kernel[1] + biasCount();
  }

  @Override
  String paramBlock() {
    return "convolution_param";
  }

  @Override
  void writeShapeFields(PrototxtWriter w) {
    window.write(w);
    if (group != null) {
      w.bare("group", group);
    }
  }
}
