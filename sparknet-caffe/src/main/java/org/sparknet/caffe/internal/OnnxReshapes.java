package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.sparknet.caffe.internal.OnnxGraph.Attr;
import org.sparknet.caffe.internal.TextFormat.Message;

/** The layers that only move values: Concat, Flatten and Reshape, with Caffe's axis rules. */
final class OnnxReshapes {
  private final OnnxConverter c;
  private final OnnxLayers ops;

  OnnxReshapes(OnnxConverter c, OnnxLayers ops) {
    this.c = c;
    this.ops = ops;
  }

  /**
   * A Reshape target for {@code o}: when the batch is free, -1 for it (inferred from the other
   * axes, which are all known), as the input of the Reshape need not have the batch on axis 0.
   */
  String shapeConstant(int[] o) {
    long[] d = new long[o.length];
    for (int a = 0; a < o.length; a++) {
      d[a] = a == 0 && c.batchFree ? -1 : o[a];
    }
    return ops.graph().int64s(c.layer + "/shape", d);
  }

  void concat(Message l) {
    Message p = OnnxLayers.param(l, "concat_param");
    int[] s = ops.shapeOf(l);
    int axis =
        c.axis(
            p.has("concat_dim") ? ops.integer(p, "concat_dim", 1) : ops.integer(p, "axis", 1),
            s.length,
            "concat_param.axis");
    int[] o = s.clone();
    o[axis] = 0;
    List<String> xs = new ArrayList<>();
    for (String b : l.values("bottom")) {
      int[] t = c.shape.get(b);
      for (int a = 0; a < s.length; a++) {
        if (t.length != s.length || (a != axis && t[a] != s[a])) {
          throw c.bad(
              "inputs differ in shape off the concat axis: "
                  + Arrays.toString(s)
                  + " and "
                  + Arrays.toString(t));
        }
      }
      o[axis] += t[axis];
      xs.add(c.value.get(b));
    }
    if (axis == 0) {
      c.batchFree = false;
    }
    ops.out(l, "Concat", xs, o, Attr.i("axis", axis));
  }

  void flatten(Message l) {
    Message p = OnnxLayers.param(l, "flatten_param");
    int[] s = ops.shapeOf(l);
    int axis = c.axis(ops.integer(p, "axis", 1), s.length, "flatten_param.axis");
    int end = c.axis(ops.integer(p, "end_axis", -1), s.length, "flatten_param.end_axis");
    int[] o = new int[s.length - (end - axis)];
    System.arraycopy(s, 0, o, 0, axis);
    o[axis] = 1;
    for (int a = axis; a <= end; a++) {
      o[axis] *= s[a];
    }
    System.arraycopy(s, end + 1, o, axis + 1, s.length - end - 1);
    if (axis == 0) {
      c.batchFree = false;
    }
    if (axis == 1 && end == s.length - 1) {
      ops.out(l, "Flatten", List.of(ops.in(l)), o, Attr.i("axis", 1));
    } else {
      ops.out(l, "Reshape", List.of(ops.in(l), shapeConstant(o)), o);
    }
  }

  void reshape(Message l) {
    Message p = OnnxLayers.param(l, "reshape_param");
    int[] s = ops.shapeOf(l);
    int a0 = ops.integer(p, "axis", 0);
    int start = a0 >= 0 ? a0 : s.length + a0 + 1;
    int n = ops.integer(p, "num_axes", -1);
    int end = n == -1 ? s.length : start + n;
    if (start < 0 || start > s.length || end > s.length || end < start) {
      throw c.bad(
          "reshape_param axis "
              + a0
              + " and num_axes "
              + n
              + " do not fit the input "
              + Arrays.toString(s));
    }
    Message shape = OnnxLayers.param(p, "shape");
    List<String> dims = shape.values("dim");
    int[] o = new int[start + dims.size() + (s.length - end)];
    System.arraycopy(s, 0, o, 0, start);
    System.arraycopy(s, end, o, start + dims.size(), s.length - end);
    long total = 1;
    for (int d : s) {
      total *= d;
    }
    int infer = -1;
    long known = 1;
    for (int i = 0; i < dims.size(); i++) {
      int d = Integer.parseInt(dims.get(i));
      if (d == 0) {
        if (start + i >= s.length) {
          throw c.bad("reshape_param.shape dim " + i + " copies an axis the input does not have");
        }
        d = s[start + i];
      }
      if (d == -1) {
        if (infer >= 0) {
          throw c.bad("reshape_param.shape has more than one -1");
        }
        infer = start + i;
      } else {
        o[start + i] = d;
        known *= d;
      }
    }
    for (int a = 0; a < o.length; a++) {
      if (a < start || a >= start + dims.size()) {
        known *= o[a];
      }
    }
    if (infer >= 0) {
      o[infer] = (int) (total / Math.max(known, 1));
      known *= o[infer];
    }
    if (known != total) {
      throw c.bad(
          "reshape_param.shape gives "
              + Arrays.toString(o)
              + " ("
              + known
              + " values) for an input of "
              + Arrays.toString(s)
              + " ("
              + total
              + " values)");
    }
    boolean keepsBatch = start > 0 || (!dims.isEmpty() && dims.get(0).equals("0"));
    if (!keepsBatch) {
      c.batchFree = false;
    }
    ops.out(l, "Reshape", List.of(ops.in(l), shapeConstant(o)), o);
  }
}
