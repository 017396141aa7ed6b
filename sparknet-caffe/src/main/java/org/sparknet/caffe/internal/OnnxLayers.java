package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sparknet.caffe.internal.OnnxGraph.Attr;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * One Caffe layer as ONNX nodes, with the top's shape computed as Caffe's Reshape computes it. The
 * shape arithmetic that converters often get wrong is written out here: pooling keeps Caffe's
 * output size and divisor ({@link OnnxPooling}), and LRN's alpha is divided by the window size in
 * both frameworks (ONNX's LRN: {@code x / (bias + alpha/size * sum x^2)^beta}).
 */
final class OnnxLayers {
  /** The layer types converted, for the error that names an unsupported one. */
  static final List<String> SUPPORTED =
      List.of(
          "Input",
          "Data",
          "Convolution",
          "Pooling",
          "InnerProduct",
          "ReLU",
          "Sigmoid",
          "TanH",
          "Softmax",
          "Dropout",
          "LRN",
          "BatchNorm",
          "Scale",
          "Eltwise",
          "Concat",
          "Flatten",
          "Reshape",
          "Split");

  private final OnnxConverter c;
  private final OnnxGraph g;
  private final OnnxReshapes shapes;

  OnnxLayers(OnnxConverter c, OnnxGraph g) {
    this.c = c;
    this.g = g;
    this.shapes = new OnnxReshapes(c, this);
  }

  void convert(Message l) {
    String type = l.value("type", "");
    switch (type) {
      case "Convolution" -> convolution(l);
      case "Pooling" -> new OnnxPooling(this).pool(l, in(l), shapeOf(l));
      case "InnerProduct" -> innerProduct(l);
      case "ReLU" -> relu(l);
      case "Sigmoid" -> same(l, "Sigmoid");
      case "TanH" -> same(l, "Tanh");
      case "Dropout" -> same(l, "Identity"); // Caffe's Dropout is the identity at TEST
      case "Softmax" -> softmax(l);
      case "LRN" -> lrn(l);
      case "BatchNorm" -> batchNorm(l);
      case "Scale" -> scale(l);
      case "Eltwise" -> eltwise(l);
      case "Concat" -> shapes.concat(l);
      case "Flatten" -> shapes.flatten(l);
      case "Reshape" -> shapes.reshape(l);
      case "Split" -> {
        for (String t : l.values("top")) {
          top(t, g.op("Identity", t, List.of(in(l))), shapeOf(l));
        }
      }
      default ->
          throw c.bad(
              "layer type '"
                  + type
                  + "' cannot be exported to ONNX; supported: "
                  + String.join(", ", SUPPORTED)
                  + ", and loss and accuracy layers (dropped)");
    }
  }

  String in(Message l) {
    return c.value.get(l.values("bottom").get(0));
  }

  int[] shapeOf(Message l) {
    return c.shape.get(l.values("bottom").get(0));
  }

  /** Writes {@code v} as the layer's first top and returns nothing more to do. */
  void out(Message l, String op, List<String> inputs, int[] s, Attr... attrs) {
    String t = l.values("top").get(0);
    String v = c.produce(t, c.layer);
    g.node(op, inputs, List.of(v), attrs);
    c.set(t, v, s);
  }

  private void top(String t, String existing, int[] s) {
    String v = c.produce(t, c.layer);
    g.node("Identity", List.of(existing), List.of(v));
    c.set(t, v, s);
  }

  private void same(Message l, String op) {
    out(l, op, List.of(in(l)), shapeOf(l));
  }

  OnnxConverter converter() {
    return c;
  }

  OnnxGraph graph() {
    return g;
  }

  static Message param(Message l, String name) {
    Message p = l.child(name);
    return p == null ? new Message() : p;
  }

  int integer(Message p, String field, int dflt) {
    return parsed(p, field, dflt, Integer::valueOf, "an integer");
  }

  float number(Message p, String field, float dflt) {
    return parsed(p, field, dflt, Float::valueOf, "a number");
  }

  private <T> T parsed(
      Message p, String field, T dflt, java.util.function.Function<String, T> parse, String kind) {
    String v = p.value(field, null);
    try {
      return v == null ? dflt : parse.apply(v);
    } catch (NumberFormatException e) {
      throw c.bad(field + " must be " + kind + " but was " + v);
    }
  }

  static boolean flag(Message p, String field, boolean dflt) {
    String v = p.value(field, null);
    return v == null ? dflt : DataLayers.isTrue(v);
  }

  void rank(int[] s, int want) {
    if (s.length != want) {
      throw c.bad("takes a blob of " + want + " axes but its input is " + Arrays.toString(s));
    }
  }

  /**
   * A 2-D spatial parameter: {@code prefix_h} and {@code prefix_w}, or the repeated {@code name}
   * (one value for both axes or one per axis), else {@code dflt} (negative: required).
   */
  int[] spatial(Message p, String name, String prefix, int dflt) {
    if (p.has(prefix + "_h") || p.has(prefix + "_w")) {
      if (!p.has(prefix + "_h") || !p.has(prefix + "_w")) {
        throw c.bad("give both " + prefix + "_h and " + prefix + "_w");
      }
      return new int[] {integer(p, prefix + "_h", 0), integer(p, prefix + "_w", 0)};
    }
    List<String> v = p.values(name);
    if (v.isEmpty()) {
      if (dflt < 0) {
        throw c.bad(name + " (or " + prefix + "_h and " + prefix + "_w) is required");
      }
      return new int[] {dflt, dflt};
    }
    if (v.size() > 2) {
      throw c.bad(name + " has " + v.size() + " values; 2-D layers take 1 or 2");
    }
    int a = Integer.parseInt(v.get(0));
    return new int[] {a, Integer.parseInt(v.get(v.size() - 1))};
  }

  private void convolution(Message l) {
    Message p = param(l, "convolution_param");
    int[] s = shapeOf(l);
    rank(s, 4);
    if (integer(p, "axis", 1) != 1) {
      throw c.bad("convolution_param.axis must be 1 for ONNX");
    }
    int out = integer(p, "num_output", 0);
    int group = integer(p, "group", 1);
    int[] k = spatial(p, "kernel_size", "kernel", -1);
    int[] st = spatial(p, "stride", "stride", 1);
    int[] pad = spatial(p, "pad", "pad", 0);
    int[] dil = spatial(p, "dilation", "dilation", 1);
    if (group < 1 || s[1] % group != 0 || out % group != 0) {
      throw c.bad(
          "group " + group + " must divide the " + s[1] + " input and " + out + " output channels");
    }
    List<String> inputs = new ArrayList<>(List.of(in(l)));
    inputs.add(
        g.floats(
            c.layer + "/W",
            c.blob(0, out, s[1] / group, k[0], k[1]),
            out,
            s[1] / group,
            k[0],
            k[1]));
    if (flag(p, "bias_term", true)) {
      inputs.add(g.floats(c.layer + "/b", c.blob(1, out), out));
    }
    int[] o = new int[] {s[0], out, 0, 0};
    for (int a = 0; a < 2; a++) {
      o[2 + a] = (s[2 + a] + 2 * pad[a] - (dil[a] * (k[a] - 1) + 1)) / st[a] + 1;
      if (o[2 + a] <= 0) {
        throw c.bad("the kernel does not fit the input " + Arrays.toString(s));
      }
    }
    out(
        l,
        "Conv",
        inputs,
        o,
        Attr.ints("kernel_shape", k[0], k[1]),
        Attr.ints("strides", st[0], st[1]),
        Attr.ints("pads", pad[0], pad[1], pad[0], pad[1]),
        Attr.ints("dilations", dil[0], dil[1]),
        Attr.i("group", group));
  }

  private void innerProduct(Message l) {
    Message p = param(l, "inner_product_param");
    int[] s = shapeOf(l);
    int axis = c.axis(integer(p, "axis", 1), s.length, "inner_product_param.axis");
    int n = integer(p, "num_output", 0);
    int k = 1;
    for (int a = axis; a < s.length; a++) {
      k *= s[a];
    }
    boolean transpose = flag(p, "transpose", false);
    String x = in(l);
    if (axis == 0) {
      c.batchFree = false;
    }
    if (!(axis == 1 && s.length == 2)) {
      x = g.op("Flatten", c.layer + "/flat", List.of(x), Attr.i("axis", axis));
    }
    List<String> inputs = new ArrayList<>(List.of(x));
    int[] w = transpose ? new int[] {k, n} : new int[] {n, k};
    inputs.add(g.floats(c.layer + "/W", c.blob(0, w), w[0], w[1]));
    if (flag(p, "bias_term", true)) {
      inputs.add(g.floats(c.layer + "/b", c.blob(1, n), n));
    }
    int[] o = Arrays.copyOf(s, axis + 1);
    o[axis] = n;
    if (axis <= 1) {
      out(l, "Gemm", inputs, o, Attr.i("transB", transpose ? 0 : 1));
    } else {
      String y = g.op("Gemm", c.layer + "/gemm", inputs, Attr.i("transB", transpose ? 0 : 1));
      out(l, "Reshape", List.of(y, shapes.shapeConstant(o)), o);
    }
  }

  private void relu(Message l) {
    float slope = number(param(l, "relu_param"), "negative_slope", 0f);
    if (slope == 0f) {
      same(l, "Relu");
    } else {
      out(l, "LeakyRelu", List.of(in(l)), shapeOf(l), Attr.f("alpha", slope));
    }
  }

  private void softmax(Message l) {
    int[] s = shapeOf(l);
    int axis =
        c.axis(integer(param(l, "softmax_param"), "axis", 1), s.length, "softmax_param.axis");
    if (axis == 0) {
      c.batchFree = false;
    }
    out(l, "Softmax", List.of(in(l)), s, Attr.i("axis", axis));
  }

  private void lrn(Message l) {
    Message p = param(l, "lrn_param");
    int[] s = shapeOf(l);
    rank(s, 4);
    if (!p.value("norm_region", "ACROSS_CHANNELS").equals("ACROSS_CHANNELS")) {
      throw c.bad(
          "lrn_param.norm_region "
              + p.value("norm_region", "")
              + " cannot be exported to"
              + " ONNX; only ACROSS_CHANNELS");
    }
    int size = integer(p, "local_size", 5);
    if (size % 2 != 1) {
      throw c.bad("lrn_param.local_size must be odd but was " + size);
    }
    // Caffe: x / (k + alpha/n * sum x^2)^beta over n channels centred on c; ONNX's LRN divides its
    // alpha by size in the same way.
    out(
        l,
        "LRN",
        List.of(in(l)),
        s,
        Attr.f("alpha", number(p, "alpha", 1f)),
        Attr.f("beta", number(p, "beta", 0.75f)),
        Attr.f("bias", number(p, "k", 1f)),
        Attr.i("size", size));
  }

  private void batchNorm(Message l) {
    Message p = param(l, "batch_norm_param");
    int[] s = shapeOf(l);
    if (!flag(p, "use_global_stats", true)) {
      throw c.bad(
          "batch_norm_param.use_global_stats false normalizes with the batch's own"
              + " statistics, which an exported inference graph cannot; remove it");
    }
    if (s.length < 2) {
      throw c.bad("takes a blob of at least 2 axes but its input is " + Arrays.toString(s));
    }
    int ch = s[1];
    float[] mean = c.blob(0, ch).clone();
    float[] var = c.blob(1, ch).clone();
    float f = c.blob(2, 1)[0];
    // Caffe stores running sums; the third blob is their moving-average weight.
    float factor = f == 0f ? 0f : 1f / f;
    for (int i = 0; i < ch; i++) {
      mean[i] *= factor;
      var[i] *= factor;
    }
    float[] ones = new float[ch];
    Arrays.fill(ones, 1f);
    List<String> inputs =
        List.of(
            in(l),
            g.floats(c.layer + "/gamma", ones, ch),
            g.floats(c.layer + "/beta", new float[ch], ch),
            g.floats(c.layer + "/mean", mean, ch),
            g.floats(c.layer + "/var", var, ch));
    out(l, "BatchNormalization", inputs, s, Attr.f("epsilon", number(p, "eps", 1e-5f)));
  }

  private void scale(Message l) {
    Message p = param(l, "scale_param");
    int[] s = shapeOf(l);
    if (l.values("bottom").size() != 1) {
      throw c.bad(
          "a Scale with its factors in a second bottom cannot be exported; only learned"
              + " factors");
    }
    int axis = c.axis(integer(p, "axis", 1), s.length, "scale_param.axis");
    int n = integer(p, "num_axes", 1);
    int end = n < 0 ? s.length : axis + n;
    if (end > s.length) {
      throw c.bad("scale_param axis + num_axes goes past the input's " + s.length + " axes");
    }
    if (axis == 0 && end > 0) {
      c.batchFree = false;
    }
    int[] w = Arrays.copyOfRange(s, axis, end);
    long[] dims = new long[s.length - axis];
    Arrays.fill(dims, 1L);
    for (int a = 0; a < w.length; a++) {
      dims[a] = w[a];
    }
    String x = in(l);
    boolean bias = flag(p, "bias_term", false);
    String scaled =
        bias
            ? g.op(
                "Mul",
                c.layer + "/scaled",
                List.of(x, g.floats(c.layer + "/gamma", c.blob(0, w), dims)))
            : null;
    if (bias) {
      out(l, "Add", List.of(scaled, g.floats(c.layer + "/beta", c.blob(1, w), dims)), s);
    } else {
      out(l, "Mul", List.of(x, g.floats(c.layer + "/gamma", c.blob(0, w), dims)), s);
    }
  }

  private void eltwise(Message l) {
    Message p = param(l, "eltwise_param");
    List<String> bottoms = l.values("bottom");
    int[] s = shapeOf(l);
    List<String> xs = new ArrayList<>();
    for (String b : bottoms) {
      if (!Arrays.equals(c.shape.get(b), s)) {
        throw c.bad(
            "inputs differ in shape: "
                + Arrays.toString(s)
                + " and "
                + Arrays.toString(c.shape.get(b)));
      }
      xs.add(c.value.get(b));
    }
    String op = p.value("operation", "SUM");
    List<String> coeff = p.values("coeff");
    if (!coeff.isEmpty() && (!op.equals("SUM") || coeff.size() != bottoms.size())) {
      throw c.bad(
          "eltwise_param.coeff needs operation SUM and one value per bottom ("
              + bottoms.size()
              + ") but has "
              + coeff.size());
    }
    switch (op) {
      case "SUM" -> {
        for (int i = 0; i < coeff.size(); i++) {
          float k = Float.parseFloat(coeff.get(i));
          if (k != 1f) {
            String cst = g.floats(c.layer + "/coeff", new float[] {k});
            xs.set(i, g.op("Mul", c.layer + "/term", List.of(xs.get(i), cst)));
          }
        }
        out(l, "Sum", xs, s);
      }
      case "PROD" -> out(l, "Mul", xs, s);
      case "MAX" -> out(l, "Max", xs, s);
      default -> throw c.bad("eltwise_param.operation " + op + " is not SUM, PROD or MAX");
    }
  }
}
