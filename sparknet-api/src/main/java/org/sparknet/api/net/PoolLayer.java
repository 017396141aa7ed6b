package org.sparknet.api.net;

import java.util.List;
import org.sparknet.api.Phase;

/**
 * Caffe's {@code Pooling}, MAX or AVE. Caffe rounds the output size up: {@code ceil((in + 2 pad -
 * kernel) / stride) + 1}, less one when padding would start the last window inside the padding.
 */
public final class PoolLayer extends LayerSpec<PoolLayer> implements WindowedLayer<PoolLayer> {
  /** Caffe's PoolingParameter.PoolMethod values that work on CPU and GPU. */
  public enum Method {
    MAX,
    AVE
  }

  private final Method method;
  private final Window window = new Window();
  private boolean global;

  private PoolLayer(String name, Method method) {
    super(name, "Pooling", null);
    this.method = method;
  }

  public static PoolLayer max(String name) {
    return new PoolLayer(name, Method.MAX);
  }

  public static PoolLayer ave(String name) {
    return new PoolLayer(name, Method.AVE);
  }

  public Method method() {
    return method;
  }

  @Override
  Window window() {
    return window;
  }

  /** Pools each channel's whole plane to one value ([N, C, 1, 1]); no kernel, stride or pad. */
  public PoolLayer optGlobal() {
    this.global = true;
    return this;
  }

  @Override
  void checkComplete() {
    if (global) {
      if (window.kernel != null || window.strideSet || window.padSet) {
        throw fail("global pooling takes no kernel, stride or pad; remove them or optGlobal()");
      }
      return;
    }
    required("kernel", window.kernel, "setKernel(size) or optGlobal()");
    for (int i = 0; i < 2; i++) {
      if (window.pad[i] >= window.kernel[i]) {
        throw fail(
            "field 'pad' ("
                + window.pad[i]
                + ") must be smaller than the kernel ("
                + window.kernel[i]
                + ")");
      }
    }
  }

  @Override
  List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    List<Integer> in = image(inputs.get(0), names.get(0));
    if (global) {
      return List.of(shape(in.get(0), in.get(1), 1, 1));
    }
    Window.checkFits(this, window.kernel, window.pad, in.get(2), in.get(3), names.get(0));
    return List.of(shape(in.get(0), in.get(1), outSize(in.get(2), 0), outSize(in.get(3), 1)));
  }

  private int outSize(int in, int axis) {
    int k = window.kernel[axis];
    int s = window.stride[axis];
    int p = window.pad[axis];
    int out = (int) Math.ceil((double) (in + 2 * p - k) / s) + 1;
    if (p > 0 && (out - 1) * s >= in + p) {
      out--; // the last window must start inside the image (Caffe's PoolingLayer::Reshape)
    }
    return out;
  }

  @Override
  void writeParams(PrototxtWriter w) {
    w.open("pooling_param").bare("pool", method.name());
    if (global) {
      w.bare("global_pooling", "true");
    } else {
      window.write(w);
    }
    w.close();
  }
}
