package org.sparknet.caffe.internal;

import java.util.List;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A net's legacy net-level inputs ({@code input: "data"} with four {@code input_dim}s or one {@code
 * input_shape} each) as one {@code Input} layer named "input", first in the net, as Caffe's {@code
 * UpgradeNetInput} makes it. Where Caffe would read past the dims it was given, this throws.
 */
final class NetInputs {
  private NetInputs() {}

  static Message toInputLayer(Message net, String source) {
    List<Field> inputs = net.all("input");
    List<Field> shapes = net.all("input_shape");
    List<Field> dims = net.all("input_dim");
    if (inputs.isEmpty()) {
      Field f = shapes.isEmpty() ? dims.get(0) : shapes.get(0);
      throw new IllegalArgumentException(
          source
              + ", "
              + f.where()
              + ": net-level '"
              + f.name()
              + "' without an 'input' naming the blob; add input: \"data\" before it, or declare"
              + " the input with an Input layer");
    }
    Message out = new Message();
    if (shapes.isEmpty() && dims.isEmpty()) {
      // a net that only names its inputs (old .caffemodel files): Caffe drops the names
      copyAllBut(net, out, null);
      return out;
    }
    Message param = new Message();
    if (!shapes.isEmpty()) {
      if (shapes.size() != inputs.size()) {
        throw countError(
            source, shapes.get(0), inputs.size() + " input_shape blocks", shapes.size());
      }
      for (Field s : shapes) {
        param.add(Field.message("shape", s.message()));
      }
    } else {
      if (dims.size() != 4 * inputs.size()) {
        throw countError(
            source,
            dims.get(0),
            4 * inputs.size() + " input_dim values (4 per input)",
            dims.size());
      }
      for (int i = 0; i < inputs.size(); i++) {
        Message shape = new Message();
        for (Field d : dims.subList(4 * i, 4 * i + 4)) {
          shape.add(Field.scalar("dim", d.value()));
        }
        param.add(Field.message("shape", shape));
      }
    }
    Message layer = new Message();
    layer.add(Field.string("name", "input"));
    layer.add(Field.string("type", "Input"));
    for (Field in : inputs) {
      layer.add(Field.string("top", in.value()));
    }
    layer.add(Field.message("input_param", param));
    copyAllBut(net, out, Field.message("layer", layer));
    return out;
  }

  /** The net without its input fields; {@code inputLayer} (if any) before the first layer. */
  private static void copyAllBut(Message net, Message out, Field inputLayer) {
    boolean placed = inputLayer == null;
    for (Field f : net.fields()) {
      String n = f.name();
      if (n.equals("input") || n.equals("input_dim") || n.equals("input_shape")) {
        continue;
      }
      if (!placed && n.equals("layer")) {
        out.add(inputLayer);
        placed = true;
      }
      out.add(f);
    }
    if (!placed) {
      out.add(inputLayer);
    }
  }

  private static IllegalArgumentException countError(
      String source, Field first, String expected, int found) {
    return new IllegalArgumentException(
        source
            + ", "
            + first.where()
            + ": the net's inputs need "
            + expected
            + " but the file has "
            + found
            + "; give each input its full shape");
  }
}
