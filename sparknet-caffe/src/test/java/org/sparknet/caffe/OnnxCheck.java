package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.data.Example;
import org.sparknet.ndarray.NDArray;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.OnnxRuntimeRun;
import org.sparknet.testing.Tolerance;
import org.sparknet.testing.data.FashionMnist;

/**
 * Runs a net in Caffe and its ONNX export in ONNX Runtime on the same real Fashion-MNIST pixels and
 * compares the outputs.
 */
final class OnnxCheck {
  private OnnxCheck() {}

  /**
   * Caffe and ONNX Runtime agree within 1e-4, absolute, or relative to the value for values above 1
   * (float32 sums in another order: the largest differences seen were near 1e-6 of the value).
   */
  static final Tolerance ONNX = new Tolerance(1e-4, 1e-4);

  /**
   * Feeds real Fashion-MNIST test images into blob "data" of any shape [N, C, H, W]: channel c of
   * example n is image n*C + c, tiled over H x W (28 x 28 repeats), pixels times {@code scale}. The
   * label is the first image's.
   */
  static BatchFeeder fashion(float scale) {
    List<Example> images = FashionMnist.load(false, 200);
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      int[] d = data.shape().dims();
      int per = (int) (data.size() / d[0]);
      int c = d.length > 1 ? d[1] : 1;
      int h = d.length > 2 ? d[2] : 1;
      int w = d.length > 3 ? d[3] : 1;
      float[] row = new float[per];
      for (int n = 0; n < d[0]; n++) {
        for (int k = 0; k < per; k++) {
          int ch = k / (h * w);
          int y = (k / w) % h;
          int x = k % w;
          float[] img = images.get((n * c + ch) % images.size()).features();
          row[k] = img[(y % 28) * 28 + (x % 28)] * scale;
        }
        data.slice(0, n).copyFrom(row);
        if (in.containsKey("label")) {
          in.get("label").setFlat(n, images.get((n * c) % images.size()).label());
        }
      }
    };
  }

  /**
   * Runs Caffe's TEST forward with {@code feeder}, feeds Caffe's blob "data" (after its transform)
   * to ONNX Runtime, and checks every blob in {@code blobs} against the ONNX output of that name.
   *
   * @return the largest absolute difference seen
   */
  static double compare(CaffeNet net, OnnxRuntimeRun ort, BatchFeeder feeder, List<String> blobs)
      throws Exception {
    List<String> all = new java.util.ArrayList<>(blobs);
    all.add(0, "data");
    Map<String, Blob> caffe = forward(net, feeder, all);
    Blob data = caffe.get("data");
    Map<String, OnnxRuntimeRun.Output> onnx = ort.run("data", data.values(), data.shape());
    double worst = 0;
    for (String b : blobs) {
      Blob expected = caffe.get(b);
      OnnxRuntimeRun.Output actual = onnx.get(b);
      assertTrue(actual != null, "ONNX output '" + b + "' missing; outputs are " + onnx.keySet());
      assertArrayEquals(expected.shape(), actual.shape(), "shape of " + b);
      try {
        NDAssert.assertAllClose(expected.values(), actual.values(), ONNX);
      } catch (AssertionError e) {
        throw new AssertionError(
            "blob '" + b + "' " + Arrays.toString(expected.shape()) + ": " + e.getMessage(), e);
      }
      float[] e = expected.values();
      for (int i = 0; i < e.length; i++) {
        worst = Math.max(worst, Math.abs(e[i] - actual.values()[i]));
      }
    }
    return worst;
  }

  /** A blob copied to the heap. */
  record Blob(long[] shape, float[] values) {}

  /** Caffe's TEST forward, the blobs copied to the heap and their native arrays closed. */
  static Map<String, Blob> forward(CaffeNet net, BatchFeeder feeder, List<String> blobs) {
    Map<String, Blob> out = new java.util.LinkedHashMap<>();
    Map<String, NDArray> arrays = net.forward(feeder, blobs);
    try {
      arrays.forEach((k, a) -> out.put(k, new Blob(toLongs(a.shape().dims()), a.toArray())));
    } finally {
      arrays.values().forEach(NDArray::close);
    }
    return out;
  }

  static long[] toLongs(int[] dims) {
    return Arrays.stream(dims).asLongStream().toArray();
  }

  /** Softmax over the last axis of [rows, classes]. */
  static float[] softmax(float[] scores, int classes) {
    float[] p = new float[scores.length];
    for (int r = 0; r < scores.length / classes; r++) {
      double max = Double.NEGATIVE_INFINITY;
      for (int k = 0; k < classes; k++) {
        max = Math.max(max, scores[r * classes + k]);
      }
      double sum = 0;
      for (int k = 0; k < classes; k++) {
        sum += Math.exp(scores[r * classes + k] - max);
      }
      for (int k = 0; k < classes; k++) {
        p[r * classes + k] = (float) (Math.exp(scores[r * classes + k] - max) / sum);
      }
    }
    return p;
  }
}
