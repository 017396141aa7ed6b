package org.sparknet.bench.loop;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.caffe.BoolVector;
import org.bytedeco.caffe.ConvolutionParameter;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobVector;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.data.Example;
import org.sparknet.caffe.PlainCaffeSolver;

/**
 * Per-layer forward and backward times of one net's training pass, timed as Caffe's own {@code
 * caffe time} tool does (tools/caffe.cpp {@code time()}): each layer's {@code
 * Forward(bottom_vecs[i], top_vecs[i])} in order, then each layer's {@code Backward(top_vecs[i],
 * bottom_need_backward[i], bottom_vecs[i])} in reverse, skipping the layers that {@code
 * Net::Backward} skips ({@code layer_need_backward}); and, on the same net, the solver's whole
 * {@code Step(1)} (ClearParamDiffs, the same forward and backward, ApplyUpdate). The inputs are
 * real images: a few distinct batches copied into the Input blobs in turn before each pass (outside
 * the timed calls), so the net never trains on one batch only (its gradients would shrink towards
 * denormals). Also times Caffe's {@code im2col_cpu} and {@code col2im_cpu} on each 2-D
 * convolution's own bottom blob, as often as the layer runs them in one step, on scratch buffers of
 * the layer's column size.
 *
 * <p>Native memory: the solver, freed by {@link #close()}; the scratch buffers of the im2col timing
 * live in a {@link PointerScope} of that call.
 */
final class LayerTimer implements AutoCloseable {
  private final PlainCaffeSolver solver;
  private final List<float[]> batches;
  private final int batch;
  private int next;

  /** What one timed run gave, per layer in the net's order: the shortest pass, in seconds. */
  record Times(double[] forward, double[] backward) {}

  /** A layer's name and type, in the net's order. */
  record Layer(String name, String type) {}

  /**
   * Builds the solver of {@code def} (Input layers "data" and "label") and splits {@code examples}
   * into batches of the net's batch size (at least one whole batch needed).
   */
  LayerTimer(NetDefinition def, List<Example> examples) {
    this.solver = PlainCaffeSolver.create(def);
    int size;
    try (PointerScope scope = new PointerScope()) {
      FloatBlob data = solver.net().blob_by_name("data");
      this.batch = data.shape(0);
      size = data.count() / batch;
    }
    this.batches = new ArrayList<>();
    for (int from = 0; from + batch <= examples.size(); from += batch) {
      float[] packed = new float[batch * (size + 1)];
      for (int i = 0; i < batch; i++) {
        Example e = examples.get(from + i);
        if (e.features().length != size) {
          solver.close();
          throw new IllegalArgumentException(
              "Blob 'data' holds " + size + " floats an example, the data " + e.features().length);
        }
        System.arraycopy(e.features(), 0, packed, i * size, size);
        packed[batch * size + i] = e.label();
      }
      batches.add(packed);
    }
    if (batches.isEmpty()) {
      solver.close();
      throw new IllegalArgumentException(
          "Need at least " + batch + " examples for one batch but got " + examples.size());
    }
  }

  int batch() {
    return batch;
  }

  List<Layer> layers() {
    List<Layer> out = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      for (int i = 0; i < net.layers().size(); i++) {
        FloatLayer l = net.layers().get(i);
        out.add(new Layer(l.layer_param().name().getString(), l.type().getString()));
      }
    }
    return out;
  }

  /** Copies the next of the batches into the Input blobs. */
  private void feed(FloatNet net) {
    float[] packed = batches.get(next);
    next = (next + 1) % batches.size();
    FloatBlob data = net.blob_by_name("data");
    FloatBlob label = net.blob_by_name("label");
    int n = data.count();
    data.mutable_cpu_data().put(packed, 0, n);
    label.mutable_cpu_data().put(packed, n, batch);
  }

  /**
   * Each layer's shortest forward and backward time in {@code iterations} passes. The shortest, not
   * the mean: on a shared machine a pass that another process interrupts is longer by the
   * interruption, which says nothing about the layer; on a quiet one the two differ by a few %.
   */
  Times time(int iterations) {
    solver.useDevice();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      int n = (int) net.layers().size();
      FloatLayer[] layers = new FloatLayer[n];
      FloatBlobVector[] bottoms = new FloatBlobVector[n];
      FloatBlobVector[] tops = new FloatBlobVector[n];
      BoolVector[] down = new BoolVector[n];
      boolean[] needed = new boolean[n];
      for (int i = 0; i < n; i++) {
        layers[i] = net.layers().get(i);
        bottoms[i] = net.bottom_vecs().get(i);
        tops[i] = net.top_vecs().get(i);
        down[i] = net.bottom_need_backward().get(i);
        needed[i] = net.layer_need_backward().get(i);
      }
      double[] fwd = new double[n];
      double[] bwd = new double[n];
      Arrays.fill(fwd, Double.MAX_VALUE);
      Arrays.fill(bwd, Double.MAX_VALUE);
      for (int it = 0; it < iterations; it++) {
        feed(net);
        for (int i = 0; i < n; i++) {
          long t0 = System.nanoTime();
          layers[i].Forward(bottoms[i], tops[i]);
          fwd[i] = Math.min(fwd[i], (System.nanoTime() - t0) / 1e9);
        }
        for (int i = n - 1; i >= 0; i--) {
          long t0 = System.nanoTime();
          if (needed[i]) {
            layers[i].Backward(tops[i], down[i], bottoms[i]);
          }
          bwd[i] = Math.min(bwd[i], (System.nanoTime() - t0) / 1e9);
        }
      }
      return new Times(fwd, bwd);
    }
  }

  /** The solver's {@code Step(1)}, {@code iterations} times: the shortest, in seconds. */
  double step(int iterations) {
    solver.useDevice();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      double best = Double.MAX_VALUE;
      for (int it = 0; it < iterations; it++) {
        feed(net);
        long t0 = System.nanoTime();
        solver.solver().Step(1);
        best = Math.min(best, (System.nanoTime() - t0) / 1e9);
      }
      return best;
    }
  }

  /**
   * Seconds per step that Caffe's im2col and col2im take in each layer (0 for a layer that is not a
   * 2-D convolution, and for a 1×1 one, which Caffe runs without them): per image one im2col in the
   * forward pass, one in the backward pass (the weight gradient) and one col2im when the layer
   * propagates down. The shortest of {@code iterations} steps' worth of calls.
   */
  double[] im2col(int iterations) {
    solver.useDevice();
    try (PointerScope scope = new PointerScope()) {
      FloatNet net = solver.net();
      int n = (int) net.layers().size();
      double[] out = new double[n];
      for (int i = 0; i < n; i++) {
        FloatLayer layer = net.layers().get(i);
        if (!layer.type().getString().equals("Convolution")) {
          continue;
        }
        ColumnShape s = ColumnShape.of(layer, net.bottom_vecs().get(i).get(0));
        if (s == null || s.oneByOne()) {
          continue;
        }
        boolean down = net.bottom_need_backward().get(i).get(0);
        FloatPointer image = net.bottom_vecs().get(i).get(0).cpu_data();
        out[i] = s.seconds(image, batch, iterations, down);
      }
      return out;
    }
  }

  @Override
  public void close() {
    solver.close();
  }

  /** The arguments Caffe's im2col_cpu gets for one image of a 2-D convolution. */
  private record ColumnShape(
      int channels, int height, int width, int kernel, int pad, int stride, int dilation) {
    static ColumnShape of(FloatLayer layer, FloatBlob bottom) {
      ConvolutionParameter p = layer.layer_param().convolution_param();
      if (bottom.num_axes() != 4
          || p.has_kernel_h()
          || p.has_pad_h()
          || p.has_stride_h()
          || p.kernel_size_size() != 1
          || p.pad_size() > 1
          || p.stride_size() > 1
          || p.dilation_size() > 1) {
        return null; // not a square 2-D kernel: untimed, shown as 0
      }
      return new ColumnShape(
          bottom.shape(1),
          bottom.shape(2),
          bottom.shape(3),
          p.kernel_size(0),
          p.pad_size() == 0 ? 0 : p.pad(0),
          p.stride_size() == 0 ? 1 : p.stride(0),
          p.dilation_size() == 0 ? 1 : p.dilation(0));
    }

    boolean oneByOne() {
      return kernel == 1 && pad == 0 && stride == 1;
    }

    long imageSize() {
      return (long) channels * height * width;
    }

    long columnSize() {
      long outH = (height + 2L * pad - (dilation * (kernel - 1L) + 1)) / stride + 1;
      long outW = (width + 2L * pad - (dilation * (kernel - 1L) + 1)) / stride + 1;
      return (long) channels * kernel * kernel * outH * outW;
    }

    /** Seconds a step: 2 im2col per image, plus a col2im per image when {@code down} (best). */
    double seconds(FloatPointer images, int batch, int iterations, boolean down) {
      try (FloatPointer col = new FloatPointer(columnSize());
          FloatPointer im = new FloatPointer(imageSize());
          FloatPointer at = new FloatPointer(images)) {
        double best = Double.MAX_VALUE;
        for (int it = 0; it < iterations; it++) {
          long t0 = System.nanoTime();
          for (int b = 0; b < batch; b++) {
            at.position(b * imageSize());
            im2col(at, col);
            im2col(at, col);
            if (down) {
              caffe.col2im_cpu_float(
                  col, channels, height, width, kernel, kernel, pad, pad, stride, stride, dilation,
                  dilation, im);
            }
          }
          best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        return best;
      }
    }

    private void im2col(FloatPointer image, FloatPointer col) {
      caffe.im2col_cpu_float(
          image, channels, height, width, kernel, kernel, pad, pad, stride, stride, dilation,
          dilation, col);
    }
  }
}
