package org.sparknet.caffe.internal;

import java.util.Map;
import java.util.TreeSet;
import org.sparknet.caffe.internal.TextFormat.Field;

/**
 * One of the enum fields that older Caffe files write where the current format writes a string (a
 * V1 layer's type, a solver's solver_type): the table from the enum's names to the strings, and the
 * one error for a value the table does not hold, so that every such upgrade names the place, the
 * value and the accepted names alike.
 *
 * @param what the field as the error names it, e.g. "V1 layer type"
 * @param table the enum's names to the current format's strings
 * @param accepted what precedes the accepted names in the error
 * @param otherwise what to write instead, closing the error in parentheses
 */
record LegacyEnum(String what, Map<String, String> table, String accepted, String otherwise) {

  /**
   * The current format's string for {@code field}, which must hold one of the enum's names
   * unquoted; {@code source} (the file, and the layer when there is one) starts the error.
   */
  String upgrade(Field field, String source) {
    String v = table.get(field.value());
    if (v == null || field.quoted()) {
      throw new IllegalArgumentException(
          source
              + ", "
              + field.where()
              + ": unknown "
              + what
              + " "
              + (field.quoted() ? "\"" + field.value() + "\"" : field.value())
              + "; "
              + accepted
              + " "
              + new TreeSet<>(table.keySet())
              + " ("
              + otherwise
              + ")");
    }
    return v;
  }
}
