package org.sparknet.api.net;

import java.math.BigDecimal;

/** Writes protobuf text format with two-space indentation, as Caffe's own files are written. */
final class PrototxtWriter {
  private final StringBuilder out = new StringBuilder();
  private int depth;

  PrototxtWriter open(String block) {
    indent().append(block).append(" {\n");
    depth++;
    return this;
  }

  PrototxtWriter close() {
    depth--;
    indent().append("}\n");
    return this;
  }

  PrototxtWriter string(String field, String value) {
    indent().append(field).append(": \"").append(escape(value)).append("\"\n");
    return this;
  }

  /** An enum value or a number, written bare. */
  PrototxtWriter bare(String field, Object value) {
    indent().append(field).append(": ").append(value).append('\n');
    return this;
  }

  PrototxtWriter number(String field, double value) {
    return bare(field, format(value));
  }

  /**
   * Plain decimal notation without trailing zeros ("0.00390625", "1", "1e-8" as "0.00000001"): the
   * shortest text that reads back as the same double, in the form the model-zoo files use.
   */
  static String format(double value) {
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("not a finite number: " + value);
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  private StringBuilder indent() {
    for (int i = 0; i < depth; i++) {
      out.append("  ");
    }
    return out;
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }

  @Override
  public String toString() {
    return out.toString();
  }
}
