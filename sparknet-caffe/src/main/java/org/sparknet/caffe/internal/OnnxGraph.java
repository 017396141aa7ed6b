package org.sparknet.caffe.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An ONNX graph under construction, written as an ONNX ModelProto (field numbers of onnx.proto).
 * Opset 13 and IR version 7: ONNX Runtime 1.x reads both, and every operator used here has had its
 * opset-13 form since then.
 */
public final class OnnxGraph {
  static final int OPSET = 13;
  static final int IR_VERSION = 7;
  private static final int FLOAT = 1;
  private static final int INT64 = 7;

  /** One attribute of a node; {@code type} is ONNX's AttributeType. */
  public record Attr(String name, int type, float f, long i, String s, long[] ints) {
    public static Attr f(String name, float v) {
      return new Attr(name, 1, v, 0, null, null);
    }

    public static Attr i(String name, long v) {
      return new Attr(name, 2, 0, v, null, null);
    }

    public static Attr s(String name, String v) {
      return new Attr(name, 3, 0, 0, v, null);
    }

    public static Attr ints(String name, long... v) {
      return new Attr(name, 7, 0, 0, null, v.clone());
    }

    ProtoMessage proto() {
      ProtoMessage m = new ProtoMessage().string(1, name).varint(20, type);
      switch (type) {
        case 1 -> m.fixedFloat(2, f);
        case 2 -> m.varint(3, i);
        case 3 -> m.string(4, s);
        default -> {
          for (long v : ints) {
            m.varint(8, v);
          }
        }
      }
      return m;
    }
  }

  private final String name;
  private final List<ProtoMessage> nodes = new ArrayList<>();
  private final List<ProtoMessage> initializers = new ArrayList<>();
  private final List<ProtoMessage> inputs = new ArrayList<>();
  private final List<ProtoMessage> outputs = new ArrayList<>();
  private final Set<String> names = new HashSet<>();
  private final Set<String> reserved = new HashSet<>();

  public OnnxGraph(String name) {
    this.name = name;
  }

  /** {@code base}, or {@code base_2}, {@code base_3}, ... : a value name not used yet. */
  public String fresh(String base) {
    String n = base;
    for (int k = 2; names.contains(n) || reserved.contains(n); k++) {
      n = base + "_" + k;
    }
    names.add(n);
    return n;
  }

  /** Keeps {@link #fresh} from handing out {@code blobs}, which {@link #claim} takes later. */
  public void reserve(Set<String> blobs) {
    reserved.addAll(blobs);
  }

  /** Claims {@code n} exactly (graph inputs and outputs keep the Caffe blob names). */
  public void claim(String n) {
    if (!names.add(n)) {
      throw new IllegalStateException("ONNX value name '" + n + "' is used twice");
    }
  }

  public void node(String op, List<String> in, List<String> out, Attr... attrs) {
    ProtoMessage m = new ProtoMessage();
    for (String s : in) {
      m.string(1, s);
    }
    for (String s : out) {
      m.string(2, s);
    }
    m.string(3, out.get(0) + "/" + op).string(4, op);
    for (Attr a : attrs) {
      m.message(5, a.proto());
    }
    nodes.add(m);
  }

  /** One node with one output named after {@code base}; returns that output's name. */
  public String op(String op, String base, List<String> in, Attr... attrs) {
    String out = fresh(base);
    node(op, in, List.of(out), attrs);
    return out;
  }

  /** A float initializer of shape {@code dims}; returns its (fresh) name. */
  public String floats(String base, float[] data, long... dims) {
    String n = fresh(base);
    ProtoMessage t = new ProtoMessage();
    for (long d : dims) {
      t.varint(1, d);
    }
    initializers.add(t.varint(2, FLOAT).string(8, n).rawFloats(9, data));
    return n;
  }

  /** A 1-D int64 initializer (shapes and pads of Reshape and Pad); returns its name. */
  public String int64s(String base, long... values) {
    String n = fresh(base);
    ProtoMessage t = new ProtoMessage().varint(1, values.length).varint(2, INT64).string(8, n);
    byte[] raw = new byte[8 * values.length];
    for (int k = 0; k < values.length; k++) {
      for (int b = 0; b < 8; b++) {
        raw[8 * k + b] = (byte) (values[k] >>> (8 * b));
      }
    }
    initializers.add(t.bytes(9, raw));
    return n;
  }

  /** A float tensor graph input or output; a null entry of {@code dims} is the symbolic batch. */
  public void input(String n, Long[] dims) {
    inputs.add(valueInfo(n, dims));
  }

  public void output(String n, Long[] dims) {
    outputs.add(valueInfo(n, dims));
  }

  private static ProtoMessage valueInfo(String n, Long[] dims) {
    ProtoMessage shape = new ProtoMessage();
    for (Long d : dims) {
      ProtoMessage dim = new ProtoMessage();
      if (d == null) {
        dim.string(2, "N");
      } else {
        dim.varint(1, d);
      }
      shape.message(1, dim);
    }
    ProtoMessage tensor = new ProtoMessage().varint(1, FLOAT).message(2, shape);
    return new ProtoMessage().string(1, n).message(2, new ProtoMessage().message(1, tensor));
  }

  /** The ModelProto. */
  public ProtoMessage model(String producerVersion) {
    ProtoMessage g = new ProtoMessage();
    nodes.forEach(n -> g.message(1, n));
    g.string(2, name);
    initializers.forEach(t -> g.message(5, t));
    inputs.forEach(v -> g.message(11, v));
    outputs.forEach(v -> g.message(12, v));
    return new ProtoMessage()
        .varint(1, IR_VERSION)
        .string(2, "SparkNet")
        .string(3, producerVersion)
        .message(7, g)
        .message(8, new ProtoMessage().string(1, "").varint(2, OPSET));
  }

  public void writeTo(OutputStream out, String producerVersion) throws IOException {
    model(producerVersion).writeTo(out);
  }
}
