package org.sparknet.caffe.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.bytedeco.caffe.Descriptor;
import org.bytedeco.caffe.EnumDescriptor;
import org.bytedeco.caffe.FieldDescriptor;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Checks a parsed text-format message against the protobuf descriptors compiled into Caffe (field
 * names, scalar versus message, enum names, number syntax, repeated fields), so that Caffe's own
 * parser never fails and every error names the line and column.
 */
public final class ProtoSchema {
  private record FieldInfo(
      String name, int type, boolean repeated, String messageType, Set<String> enumValues) {}

  private static final Map<String, Map<String, FieldInfo>> TYPES = new HashMap<>();

  private ProtoSchema() {}

  public static void checkNet(Message m, String source) {
    check(m, netType(), source, "caffe.NetParameter");
  }

  public static void checkSolver(Message m, String source) {
    check(m, solverType(), source, "caffe.SolverParameter");
  }

  private static synchronized String netType() {
    CaffeRuntime.load();
    // names come back as new BytePointers: free them with the scope, not by the GC
    try (PointerScope scope = new PointerScope()) {
      return describe(NetParameter.descriptor());
    }
  }

  private static synchronized String solverType() {
    CaffeRuntime.load();
    // names come back as new BytePointers: free them with the scope, not by the GC
    try (PointerScope scope = new PointerScope()) {
      return describe(SolverParameter.descriptor());
    }
  }

  private static String describe(Descriptor d) {
    String name = d.full_name().getString();
    if (TYPES.containsKey(name)) {
      return name;
    }
    Map<String, FieldInfo> fields = new LinkedHashMap<>();
    TYPES.put(name, fields);
    for (int i = 0; i < d.field_count(); i++) {
      FieldDescriptor f = d.field(i);
      int type = f.type();
      String msg = null;
      Set<String> enums = null;
      if (type == FieldDescriptor.TYPE_MESSAGE || type == FieldDescriptor.TYPE_GROUP) {
        msg = describe(f.message_type());
      } else if (type == FieldDescriptor.TYPE_ENUM) {
        EnumDescriptor e = f.enum_type();
        enums = new HashSet<>();
        for (int k = 0; k < e.value_count(); k++) {
          enums.add(e.value(k).name().getString());
        }
      }
      String fname = f.name().getString();
      fields.put(fname, new FieldInfo(fname, type, f.is_repeated(), msg, enums));
    }
    return name;
  }

  private static void check(Message m, String type, String source, String path) {
    Map<String, FieldInfo> fields;
    synchronized (ProtoSchema.class) {
      fields = TYPES.get(type);
    }
    Set<String> seen = new HashSet<>();
    for (Field f : m.fields()) {
      FieldInfo info = fields.get(f.name());
      if (info == null) {
        throw new IllegalArgumentException(
            source
                + ", "
                + f.where()
                + ": "
                + type
                + " has no field '"
                + f.name()
                + "' (in "
                + path
                + "); known fields: "
                + fields.keySet());
      }
      if (!info.repeated && !seen.add(f.name())) {
        throw fieldError(source, f, "of " + type + " may be given only once", path);
      }
      String here = path + "." + f.name();
      if (info.messageType != null) {
        if (!f.isMessage()) {
          String problem =
              "is a message ("
                  + info.messageType
                  + "); write "
                  + f.name()
                  + " { ... }, not a value";
          throw fieldError(source, f, problem, path);
        }
        check(f.message(), info.messageType, source, here);
      } else {
        if (f.isMessage()) {
          throw fieldError(source, f, "takes a value, not a message", path);
        }
        checkScalar(f, info, source, path);
      }
    }
  }

  private static void checkScalar(Field f, FieldInfo info, String source, String path) {
    String v = f.value();
    String problem = null;
    switch (info.type) {
      case FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES -> {
        if (!f.quoted()) {
          problem = "expects a quoted string but found " + v;
        }
      }
      case FieldDescriptor.TYPE_ENUM -> {
        if (f.quoted() || !info.enumValues.contains(v)) {
          problem = "expects one of " + info.enumValues + " but found " + shown(f);
        }
      }
      case FieldDescriptor.TYPE_BOOL -> {
        if (f.quoted()
            || !Set.of("true", "false", "True", "False", "t", "f", "1", "0").contains(v)) {
          problem = "expects true or false but found " + shown(f);
        }
      }
      case FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE -> {
        if (f.quoted() || !isFloat(v)) {
          problem = "expects a number but found " + shown(f);
        }
      }
      default -> {
        boolean unsigned =
            info.type == FieldDescriptor.TYPE_UINT32
                || info.type == FieldDescriptor.TYPE_UINT64
                || info.type == FieldDescriptor.TYPE_FIXED32
                || info.type == FieldDescriptor.TYPE_FIXED64;
        boolean wide =
            info.type == FieldDescriptor.TYPE_INT64
                || info.type == FieldDescriptor.TYPE_UINT64
                || info.type == FieldDescriptor.TYPE_SINT64
                || info.type == FieldDescriptor.TYPE_FIXED64
                || info.type == FieldDescriptor.TYPE_SFIXED64;
        Long n = f.quoted() ? null : parseInteger(v);
        if (n == null) {
          problem = "expects an integer but found " + shown(f);
        } else if (unsigned && n < 0) {
          problem = "expects a non-negative integer but found " + v;
        } else if (!wide
            && (n > (unsigned ? 0xffffffffL : Integer.MAX_VALUE) || n < Integer.MIN_VALUE)) {
          problem = "expects a 32-bit integer but found " + v;
        }
      }
    }
    if (problem != null) {
      throw fieldError(source, f, problem, path);
    }
  }

  /** "source, line L column C: field 'name' PROBLEM (in path)". */
  private static IllegalArgumentException fieldError(
      String source, Field f, String problem, String path) {
    return new IllegalArgumentException(
        source + ", " + f.where() + ": field '" + f.name() + "' " + problem + " (in " + path + ")");
  }

  private static String shown(Field f) {
    return f.quoted() ? "\"" + f.value() + "\"" : f.value();
  }

  static boolean isFloat(String v) {
    String t = v.toLowerCase(java.util.Locale.ROOT);
    if (t.equals("inf")
        || t.equals("-inf")
        || t.equals("infinity")
        || t.equals("-infinity")
        || t.equals("nan")) {
      return true;
    }
    if (t.endsWith("f")) {
      t = t.substring(0, t.length() - 1);
    }
    return t.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)(e[-+]?\\d+)?");
  }

  static Long parseInteger(String v) {
    try {
      if (v.matches("-?0[xX][0-9a-fA-F]+")) {
        boolean neg = v.startsWith("-");
        long n = Long.parseLong(v.substring(neg ? 3 : 2), 16);
        return neg ? -n : n;
      }
      if (v.matches("-?\\d+")) {
        return Long.parseLong(v);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    return null;
  }
}
