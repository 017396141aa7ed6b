package org.sparknet.caffe.internal;

import java.util.Arrays;
import java.util.List;
import org.sparknet.caffe.internal.OnnxGraph.Attr;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's Pooling as ONNX nodes with Caffe's arithmetic (pooling_layer.cpp), which ONNX's {@code
 * ceil_mode} and {@code count_include_pad} do not reproduce at the edges:
 *
 * <ul>
 *   <li>Output size: {@code ceil((in + 2p - k) / s) + 1} (or floor, for {@code round_mode: FLOOR}),
 *       less one when the last window would start in the end padding. Exported as ONNX pooling in
 *       floor mode over an input padded at the end just enough to give that size.
 *   <li>MAX ignores padding in both; the pads go in MaxPool's {@code pads}.
 *   <li>AVE divides by the window clipped to the padded input {@code [-p, in + p)}, counting the
 *       padding but not the windows' overhang past it. Exported as an explicit zero Pad, an
 *       AveragePool without padding (sum / kh*kw) and a multiplication by kh*kw / Caffe's divisor
 *       per output position.
 * </ul>
 */
final class OnnxPooling {
  private final OnnxLayers layers;
  private final OnnxConverter c;
  private final OnnxGraph g;

  OnnxPooling(OnnxLayers layers) {
    this.layers = layers;
    this.c = layers.converter();
    this.g = layers.graph();
  }

  void pool(Message l, String x, int[] s) {
    Message p = OnnxLayers.param(l, "pooling_param");
    layers.rank(s, 4);
    String method = p.value("pool", "MAX");
    if (!method.equals("MAX") && !method.equals("AVE")) {
      throw c.bad("pooling_param.pool " + method + " cannot be exported to ONNX; only MAX and AVE");
    }
    boolean global = OnnxLayers.flag(p, "global_pooling", false);
    int[] k = global ? new int[] {s[2], s[3]} : layers.spatial(p, "kernel_size", "kernel", -1);
    int[] st = layers.spatial(p, "stride", "stride", 1);
    int[] pad = layers.spatial(p, "pad", "pad", 0);
    boolean ceil = !p.value("round_mode", "CEIL").equals("FLOOR");
    int[] o = new int[2];
    int[] end = new int[2];
    for (int a = 0; a < 2; a++) {
      int in = s[2 + a];
      if (pad[a] >= k[a]) {
        throw c.bad("pad " + pad[a] + " must be smaller than the kernel " + k[a]);
      }
      o[a] = outputSize(in, k[a], st[a], pad[a], ceil);
      if (o[a] <= 0) {
        throw c.bad("the kernel " + k[a] + " does not fit the input " + Arrays.toString(s));
      }
      end[a] = pad[a] + Math.max(0, (o[a] - 1) * st[a] + k[a] - (in + 2 * pad[a]));
      if ((in + pad[a] + end[a] - k[a]) / st[a] + 1 != o[a]) {
        throw new IllegalStateException("pooling size arithmetic failed for " + c.layer);
      }
    }
    int[] top = {s[0], s[1], o[0], o[1]};
    Attr kernel = Attr.ints("kernel_shape", k[0], k[1]);
    Attr strides = Attr.ints("strides", st[0], st[1]);
    String t = l.values("top").get(0);
    if (method.equals("MAX")) {
      String v = c.produce(t, c.layer);
      g.node(
          "MaxPool",
          List.of(x),
          List.of(v),
          kernel,
          strides,
          Attr.ints("pads", pad[0], pad[1], end[0], end[1]));
      c.set(t, v, top);
      return;
    }
    String padded = x;
    if (pad[0] + pad[1] + end[0] + end[1] > 0) {
      String pads = g.int64s(c.layer + "/pads", 0, 0, pad[0], pad[1], 0, 0, end[0], end[1]);
      padded = g.op("Pad", c.layer + "/padded", List.of(x, pads));
    }
    float[] fix = divisorFix(s, k, st, pad, o);
    // Padding counts: ONNX Runtime fuses a Pad into the pooling after it, as pads, and would then
    // divide by the pixels inside the input only.
    Attr countPad = Attr.i("count_include_pad", 1);
    String v;
    if (fix == null) {
      v = c.produce(t, c.layer);
      g.node("AveragePool", List.of(padded), List.of(v), kernel, strides, countPad);
    } else {
      String avg =
          g.op("AveragePool", c.layer + "/avg", List.of(padded), kernel, strides, countPad);
      String f = g.floats(c.layer + "/divisor", fix, 1, 1, o[0], o[1]);
      v = c.produce(t, c.layer);
      g.node("Mul", List.of(avg, f), List.of(v));
    }
    c.set(t, v, top);
  }

  /** Caffe's pooled size along one axis. */
  static int outputSize(int in, int k, int s, int p, boolean ceil) {
    int span = in + 2 * p - k;
    int o = (ceil ? (int) Math.ceil((double) span / s) : Math.floorDiv(span, s)) + 1;
    if (p > 0 && (o - 1) * s >= in + p) {
      o--; // the last window must start inside the image or its start padding
    }
    return o;
  }

  /** kh*kw / Caffe's divisor at each output position; null when that is 1 everywhere. */
  private static float[] divisorFix(int[] s, int[] k, int[] st, int[] pad, int[] o) {
    float[] fix = new float[o[0] * o[1]];
    boolean ones = true;
    for (int y = 0; y < o[0]; y++) {
      int h = clipped(y, s[2], k[0], st[0], pad[0]);
      for (int x = 0; x < o[1]; x++) {
        int size = h * clipped(x, s[3], k[1], st[1], pad[1]);
        fix[y * o[1] + x] = (float) (k[0] * k[1]) / size;
        ones &= size == k[0] * k[1];
      }
    }
    return ones ? null : fix;
  }

  /** The window's extent along one axis, clipped to the padded input as Caffe's AVE counts it. */
  private static int clipped(int i, int in, int k, int s, int p) {
    int start = i * s - p;
    return Math.min(start + k, in + p) - start;
  }
}
