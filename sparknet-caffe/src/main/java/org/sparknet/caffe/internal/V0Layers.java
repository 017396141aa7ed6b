package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's V0 layers ({@code layers { layer { type: "conv" num_output: 20 ... } bottom: ... }}) as
 * V1 layers, as Caffe's {@code UpgradeV0PaddingLayers} and {@code UpgradeV0LayerParameter} make
 * them: padding layers folded into the conv or pool layer they feed, the string type mapped to the
 * V1 enum, and each flat V0 field moved into the parameter message of its layer type. A field Caffe
 * would drop (one that does not apply to the layer's type) is an error here.
 */
final class V0Layers {
  /** V0 type strings to V1 enum names (Caffe's UpgradeV0LayerType). */
  private static final Map<String, String> TYPES =
      Map.ofEntries(
          Map.entry("accuracy", "ACCURACY"),
          Map.entry("bnll", "BNLL"),
          Map.entry("concat", "CONCAT"),
          Map.entry("conv", "CONVOLUTION"),
          Map.entry("data", "DATA"),
          Map.entry("dropout", "DROPOUT"),
          Map.entry("euclidean_loss", "EUCLIDEAN_LOSS"),
          Map.entry("flatten", "FLATTEN"),
          Map.entry("hdf5_data", "HDF5_DATA"),
          Map.entry("hdf5_output", "HDF5_OUTPUT"),
          Map.entry("im2col", "IM2COL"),
          Map.entry("images", "IMAGE_DATA"),
          Map.entry("infogain_loss", "INFOGAIN_LOSS"),
          Map.entry("innerproduct", "INNER_PRODUCT"),
          Map.entry("lrn", "LRN"),
          Map.entry("multinomial_logistic_loss", "MULTINOMIAL_LOGISTIC_LOSS"),
          Map.entry("pool", "POOLING"),
          Map.entry("relu", "RELU"),
          Map.entry("sigmoid", "SIGMOID"),
          Map.entry("softmax", "SOFTMAX"),
          Map.entry("softmax_loss", "SOFTMAX_LOSS"),
          Map.entry("split", "SPLIT"),
          Map.entry("tanh", "TANH"),
          Map.entry("window_data", "WINDOW_DATA"));

  private static final String CONV = "convolution_param.";
  private static final String IP = "inner_product_param.";
  private static final String POOL = "pooling_param.";
  private static final String LRN = "lrn_param.";
  private static final String WINDOW = "window_data_param.";
  private static final String IMAGES = "image_data_param.";

  /** V0 field -> (V0 layer type -> "param_message.field" in the V1 layer). */
  private static final Map<String, Map<String, String>> TARGETS =
      Map.ofEntries(
          Map.entry(
              "num_output", Map.of("conv", CONV + "num_output", "innerproduct", IP + "num_output")),
          Map.entry(
              "biasterm", Map.of("conv", CONV + "bias_term", "innerproduct", IP + "bias_term")),
          Map.entry(
              "weight_filler",
              Map.of("conv", CONV + "weight_filler", "innerproduct", IP + "weight_filler")),
          Map.entry(
              "bias_filler",
              Map.of("conv", CONV + "bias_filler", "innerproduct", IP + "bias_filler")),
          Map.entry("pad", Map.of("conv", CONV + "pad", "pool", POOL + "pad")),
          Map.entry(
              "kernelsize", Map.of("conv", CONV + "kernel_size", "pool", POOL + "kernel_size")),
          Map.entry("group", Map.of("conv", CONV + "group")),
          Map.entry("stride", Map.of("conv", CONV + "stride", "pool", POOL + "stride")),
          Map.entry("pool", Map.of("pool", POOL + "pool")),
          Map.entry("dropout_ratio", Map.of("dropout", "dropout_param.dropout_ratio")),
          Map.entry("local_size", Map.of("lrn", LRN + "local_size")),
          Map.entry("alpha", Map.of("lrn", LRN + "alpha")),
          Map.entry("beta", Map.of("lrn", LRN + "beta")),
          Map.entry("k", Map.of("lrn", LRN + "k")),
          Map.entry(
              "source",
              Map.of(
                  "data", "data_param.source",
                  "hdf5_data", "hdf5_data_param.source",
                  "images", IMAGES + "source",
                  "window_data", WINDOW + "source",
                  "infogain_loss", "infogain_loss_param.source")),
          Map.entry(
              "batchsize",
              Map.of(
                  "data",
                  "data_param.batch_size",
                  "hdf5_data",
                  "hdf5_data_param.batch_size",
                  "images",
                  IMAGES + "batch_size",
                  "window_data",
                  WINDOW + "batch_size")),
          Map.entry(
              "rand_skip", Map.of("data", "data_param.rand_skip", "images", IMAGES + "rand_skip")),
          Map.entry("shuffle_images", Map.of("images", IMAGES + "shuffle")),
          Map.entry("new_height", Map.of("images", IMAGES + "new_height")),
          Map.entry("new_width", Map.of("images", IMAGES + "new_width")),
          Map.entry("concat_dim", Map.of("concat", "concat_param.concat_dim")),
          Map.entry("det_fg_threshold", Map.of("window_data", WINDOW + "fg_threshold")),
          Map.entry("det_bg_threshold", Map.of("window_data", WINDOW + "bg_threshold")),
          Map.entry("det_fg_fraction", Map.of("window_data", WINDOW + "fg_fraction")),
          Map.entry("det_context_pad", Map.of("window_data", WINDOW + "context_pad")),
          Map.entry("det_crop_mode", Map.of("window_data", WINDOW + "crop_mode")),
          Map.entry("hdf5_output_param", Map.of("hdf5_output", "hdf5_output_param")));

  /** V0 fields that go to transform_param whatever the layer type. */
  private static final Map<String, String> TRANSFORM =
      Map.of(
          "scale", "scale", "meanfile", "mean_file", "cropsize", "crop_size", "mirror", "mirror");

  private V0Layers() {}

  /**
   * The V1 layers of a V0 net's {@code layers} blocks.
   *
   * @param inputs the net's input blobs (padding layers may read them)
   */
  static List<Message> toV1(List<Field> layers, List<String> inputs, String source) {
    List<Message> kept = foldPadding(layers, inputs, source);
    List<Message> out = new ArrayList<>();
    for (int i = 0; i < kept.size(); i++) {
      out.add(layer(kept.get(i), source + ", V0 layer '" + name(kept.get(i), i) + "'"));
    }
    return out;
  }

  /** Caffe's UpgradeV0PaddingLayers: each padding layer becomes the pad of the layer it feeds. */
  private static List<Message> foldPadding(List<Field> layers, List<String> inputs, String source) {
    Map<String, Integer> lastTop = new HashMap<>();
    for (String in : inputs) {
      lastTop.put(in, -1);
    }
    List<Message> out = new ArrayList<>();
    for (int i = 0; i < layers.size(); i++) {
      Message conn = layers.get(i).message();
      String what = source + ", " + layers.get(i).where() + ", V0 layer '" + name(conn, i) + "'";
      String type = v0(conn).value("type", "");
      Message upgraded = conn.copy();
      if (!type.equals("padding")) {
        out.add(upgraded);
      }
      List<String> bottoms = conn.values("bottom");
      for (int j = 0; j < bottoms.size(); j++) {
        Integer from = lastTop.get(bottoms.get(j));
        if (from == null) {
          throw new IllegalArgumentException(
              what + ": bottom '" + bottoms.get(j) + "' is neither a net input nor an earlier top");
        }
        if (from >= 0 && v0(layers.get(from).message()).value("type", "").equals("padding")) {
          Message pad = layers.get(from).message();
          if (!(type.equals("conv") || type.equals("pool"))
              || bottoms.size() != 1
              || pad.values("bottom").size() != 1
              || pad.values("top").size() != 1) {
            throw new IllegalArgumentException(
                what
                    + ": a V0 padding layer may only feed a conv or pool layer with one bottom,"
                    + " and have one bottom and one top itself");
          }
          v0(upgraded).set("pad", v0(pad).value("pad", "0"));
          upgraded.remove("bottom");
          upgraded.add(Field.string("bottom", pad.values("bottom").get(0)));
        }
      }
      for (String t : conn.values("top")) {
        lastTop.put(t, i);
      }
    }
    return out;
  }

  /** Caffe's UpgradeV0LayerParameter: the V1 layer of one V0 connection. */
  private static Message layer(Message conn, String what) {
    Message v1 = new Message();
    for (Field f : conn.fields()) {
      if (!f.name().equals("bottom") && !f.name().equals("top") && !f.name().equals("layer")) {
        throw new IllegalArgumentException(
            what
                + ", "
                + f.where()
                + ": field '"
                + f.name()
                + "' beside a V0 'layer' block is dropped by Caffe's upgrade; move it into the"
                + " 'layer' block or remove it");
      }
    }
    Message v0 = v0(conn);
    String type = v0.value("type", null);
    copy(v0, "name", v1, "name");
    if (type != null) {
      String v1Type = TYPES.get(type);
      if (v1Type == null) {
        throw new IllegalArgumentException(
            what
                + ", "
                + v0.first("type").where()
                + ": unknown V0 layer type \""
                + type
                + "\"; Caffe's V0 types are "
                + new java.util.TreeSet<>(TYPES.keySet()));
      }
      v1.add(Field.scalar("type", v1Type));
    }
    copy(conn, "bottom", v1, "bottom");
    copy(conn, "top", v1, "top");
    for (String same : List.of("blobs", "blobs_lr", "weight_decay")) {
      copy(v0, same, v1, same);
    }
    for (Field f : v0.fields()) {
      moveParameter(f, type == null ? "" : type, v1, what);
    }
    return v1;
  }

  private static void moveParameter(Field f, String type, Message v1, String what) {
    String n = f.name();
    if (List.of("name", "type", "blobs", "blobs_lr", "weight_decay").contains(n)) {
      return;
    }
    String target;
    if (TRANSFORM.containsKey(n)) {
      target = "transform_param." + TRANSFORM.get(n);
    } else {
      Map<String, String> byType = TARGETS.get(n);
      target = byType == null ? null : byType.get(type);
      if (target == null) {
        throw new IllegalArgumentException(
            what
                + ", "
                + f.where()
                + ": V0 field '"
                + n
                + "' has no V1 equivalent for layer type \""
                + type
                + "\" (Caffe's upgrade drops it); remove it");
      }
    }
    int dot = target.indexOf('.');
    if (dot < 0) {
      v1.add(f);
      return;
    }
    String message = target.substring(0, dot);
    Message param = v1.child(message);
    if (param == null) {
      param = new Message();
      v1.add(Field.message(message, param));
    }
    param.add(
        new Field(
            target.substring(dot + 1), f.value(), f.quoted(), f.message(), f.line(), f.column()));
  }

  private static Message v0(Message conn) {
    Message m = conn.child("layer");
    return m == null ? new Message() : m;
  }

  private static String name(Message conn, int index) {
    return v0(conn).value("name", "#" + index);
  }

  private static void copy(Message from, String name, Message to, String as) {
    for (Field f : from.all(name)) {
      to.add(new Field(as, f.value(), f.quoted(), f.message(), f.line(), f.column()));
    }
  }
}
