package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.OnnxGraph.Attr;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Converts the TEST-phase net of a checked {@link NetPlan} and its weights to an {@link OnnxGraph}.
 * Each Caffe blob keeps its name for its last version (in-place layers write new ONNX values, as
 * ONNX values are written once). The graph inputs are the plan's TEST inputs that a kept layer
 * reads, as Caffe's layers see them (after transform_param); the outputs are the blobs that no kept
 * layer reads. Loss, accuracy and silence layers are dropped; a SoftmaxWithLoss over an output adds
 * a Softmax output called {@code prob}, as Caffe's deploy nets name it. The batch dimension is
 * symbolic ({@code N}) unless a layer works across it; then it is the net's declared batch.
 */
public final class OnnxConverter {
  private final OnnxGraph graph;
  private final WeightCollection weights;
  private final String source;
  final Map<String, String> value = new HashMap<>();
  final Map<String, int[]> shape = new HashMap<>();
  private final Map<String, Integer> writesLeft = new HashMap<>();
  private final Set<String> read = new HashSet<>();
  private final Map<String, int[]> inputs = new LinkedHashMap<>();
  private final List<String> produced = new ArrayList<>();
  private final List<String[]> softmaxHeads = new ArrayList<>();
  boolean batchFree = true;
  String layer = "";
  private String where = "";

  private OnnxConverter(String netName, WeightCollection weights, String source) {
    this.graph = new OnnxGraph(netName);
    this.weights = weights;
    this.source = source;
  }

  /** A finished graph with its inputs and outputs described as {@code name [dims]}. */
  public record Result(OnnxGraph graph, List<String> inputs, List<String> outputs) {}

  public static Result convert(NetPlan plan, WeightCollection weights, String source) {
    return new OnnxConverter(plan.netName(), weights, source).run(plan);
  }

  private Result run(NetPlan plan) {
    List<Message> kept = new ArrayList<>();
    List<Field> layers = plan.testNet().all("layer");
    NetState state = plan.testNets().get(0).state();
    Set<String> blobs = new HashSet<>();
    Set<String> bottoms = new HashSet<>();
    for (int i = 0; i < layers.size(); i++) {
      Message l = layers.get(i).message();
      String type = l.value("type", "");
      if (!StateRules.included(l, state, "net '" + plan.netName() + "'") || type.equals("Input")) {
        continue;
      }
      if (dropped(type)) {
        if (type.equals("SoftmaxWithLoss")) {
          Message p = l.child("softmax_param");
          softmaxHeads.add(
              new String[] {l.values("bottom").get(0), p == null ? "1" : p.value("axis", "1")});
        }
        continue;
      }
      if (!l.has("name")) {
        l.setString("name", NetPlan.layerName(l, i));
      }
      kept.add(l);
      bottoms.addAll(l.values("bottom"));
      for (String t : l.values("top")) {
        writesLeft.merge(t, 1, Integer::sum);
        blobs.add(t);
      }
    }
    for (InputBlob in : plan.inputs(Phase.TEST)) {
      if (bottoms.contains(in.name())) {
        writesLeft.merge(in.name(), 1, Integer::sum);
        blobs.add(in.name());
        shape.put(in.name(), in.shape().clone());
        value.put(in.name(), produce(in.name(), in.layer()));
        inputs.put(value.get(in.name()), in.shape().clone());
      }
    }
    graph.reserve(blobs);
    OnnxLayers ops = new OnnxLayers(this, graph);
    for (Message l : kept) {
      layer = l.value("name", "?");
      where = source + ", layer '" + layer + "' (" + l.value("type", "?") + ")";
      for (String b : l.values("bottom")) {
        if (!value.containsKey(b)) {
          throw bad(
              "bottom blob '" + b + "' is not produced by any TEST-phase layer kept for ONNX");
        }
        read.add(value.get(b));
      }
      ops.convert(l);
    }
    return finish();
  }

  private static boolean dropped(String type) {
    return type.endsWith("Loss") || type.equals("Accuracy") || type.equals("Silence");
  }

  private Result finish() {
    List<String> in = new ArrayList<>();
    inputs.forEach(
        (n, dims) -> {
          graph.input(n, dims(dims));
          in.add(describe(n, dims));
        });
    List<String> out = new ArrayList<>();
    for (String blob : produced) {
      String v = value.get(blob);
      if (!v.equals(blob) || read.contains(v)) {
        continue;
      }
      graph.output(v, dims(shape.get(blob)));
      out.add(describe(v, shape.get(blob)));
      for (String[] head : softmaxHeads) {
        if (head[0].equals(blob)) {
          int[] s = shape.get(blob);
          int axis = axis(Integer.parseInt(head[1]), s.length, "softmax_param.axis");
          String prob = graph.op("Softmax", "prob", List.of(v), Attr.i("axis", axis));
          graph.output(prob, dims(s));
          out.add(describe(prob, s));
        }
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(source + " has no output blob left for ONNX");
    }
    return new Result(graph, in, out);
  }

  private Long[] dims(int[] s) {
    Long[] d = new Long[s.length];
    for (int k = 0; k < s.length; k++) {
      d[k] = k == 0 && batchFree ? null : (long) s[k];
    }
    return d;
  }

  private String describe(String n, int[] s) {
    StringBuilder sb = new StringBuilder(n).append(" [");
    for (int k = 0; k < s.length; k++) {
      sb.append(k == 0 ? "" : ", ").append(k == 0 && batchFree ? "N" : String.valueOf(s[k]));
    }
    return sb.append(']').toString();
  }

  /** The ONNX value name for a new version of blob {@code blob}, written by {@code writer}. */
  String produce(String blob, String writer) {
    int left = writesLeft.merge(blob, -1, Integer::sum);
    if (left == 0) {
      graph.claim(blob);
      if (!produced.contains(blob)) {
        produced.add(blob);
      }
      return blob;
    }
    if (!produced.contains(blob)) {
      produced.add(blob);
    }
    return graph.fresh(blob + "/" + writer);
  }

  /** Records {@code v} (an ONNX value) as the new version of {@code blob}, of shape {@code s}. */
  void set(String blob, String v, int[] s) {
    value.put(blob, v);
    shape.put(blob, s);
  }

  IllegalArgumentException bad(String what) {
    return new IllegalArgumentException(where + ": " + what);
  }

  /** Caffe's CanonicalAxisIndex: a negative axis counts from the end. */
  int axis(int a, int rank, String field) {
    int c = a < 0 ? a + rank : a;
    if (c < 0 || c >= rank) {
      throw bad(field + " " + a + " is out of range for a blob of " + rank + " axes");
    }
    return c;
  }

  /**
   * The data of blob {@code j} of this layer's weights, checked to have shape {@code dims}.
   *
   * @throws IllegalArgumentException naming the layer when the weights lack it or differ in shape
   */
  float[] blob(int j, int... dims) {
    if (!weights.contains(layer)) {
      throw bad(
          "the weights have no blobs for this layer (they have "
              + weights.layerNames()
              + "); give the .caffemodel trained with this net");
    }
    List<Tensor> t = weights.get(layer);
    if (j >= t.size()) {
      throw bad("the weights hold " + t.size() + " blobs for this layer, expected blob " + j);
    }
    int[] found = t.get(j).shape().dims();
    if (!Arrays.equals(found, dims)) {
      throw bad(
          "weight blob "
              + j
              + " has shape "
              + Arrays.toString(found)
              + " but the layer's parameters and input need "
              + Arrays.toString(dims));
    }
    return t.get(j).data();
  }
}
