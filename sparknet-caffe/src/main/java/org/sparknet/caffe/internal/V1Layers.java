package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Caffe's V1 layers ({@code layers { type: CONVOLUTION ... }}) as V2 layers ({@code layer { type:
 * "Convolution" ... }}), as Caffe's {@code UpgradeNetDataTransformation} and {@code
 * UpgradeV1LayerParameter} make them: the enum type becomes its registry name, {@code param} names,
 * {@code blob_share_mode}, {@code blobs_lr} and {@code weight_decay} become one {@code param} block
 * per blob, and a V1 data layer's scale, mean_file, crop_size and mirror move into {@code
 * transform_param}.
 */
final class V1Layers {
  /** V1LayerParameter.LayerType to the V2 type string (Caffe's UpgradeV1LayerType). */
  static final Map<String, String> TYPES =
      Map.ofEntries(
          Map.entry("NONE", ""),
          Map.entry("ABSVAL", "AbsVal"),
          Map.entry("ACCURACY", "Accuracy"),
          Map.entry("ARGMAX", "ArgMax"),
          Map.entry("BNLL", "BNLL"),
          Map.entry("CONCAT", "Concat"),
          Map.entry("CONTRASTIVE_LOSS", "ContrastiveLoss"),
          Map.entry("CONVOLUTION", "Convolution"),
          Map.entry("DECONVOLUTION", "Deconvolution"),
          Map.entry("DATA", "Data"),
          Map.entry("DROPOUT", "Dropout"),
          Map.entry("DUMMY_DATA", "DummyData"),
          Map.entry("EUCLIDEAN_LOSS", "EuclideanLoss"),
          Map.entry("ELTWISE", "Eltwise"),
          Map.entry("EXP", "Exp"),
          Map.entry("FLATTEN", "Flatten"),
          Map.entry("HDF5_DATA", "HDF5Data"),
          Map.entry("HDF5_OUTPUT", "HDF5Output"),
          Map.entry("HINGE_LOSS", "HingeLoss"),
          Map.entry("IM2COL", "Im2col"),
          Map.entry("IMAGE_DATA", "ImageData"),
          Map.entry("INFOGAIN_LOSS", "InfogainLoss"),
          Map.entry("INNER_PRODUCT", "InnerProduct"),
          Map.entry("LRN", "LRN"),
          Map.entry("MEMORY_DATA", "MemoryData"),
          Map.entry("MULTINOMIAL_LOGISTIC_LOSS", "MultinomialLogisticLoss"),
          Map.entry("MVN", "MVN"),
          Map.entry("POOLING", "Pooling"),
          Map.entry("POWER", "Power"),
          Map.entry("RELU", "ReLU"),
          Map.entry("SIGMOID", "Sigmoid"),
          Map.entry("SIGMOID_CROSS_ENTROPY_LOSS", "SigmoidCrossEntropyLoss"),
          Map.entry("SILENCE", "Silence"),
          Map.entry("SOFTMAX", "Softmax"),
          Map.entry("SOFTMAX_LOSS", "SoftmaxWithLoss"),
          Map.entry("SPLIT", "Split"),
          Map.entry("SLICE", "Slice"),
          Map.entry("TANH", "TanH"),
          Map.entry("WINDOW_DATA", "WindowData"),
          Map.entry("THRESHOLD", "Threshold"));

  private static final LegacyEnum TYPE =
      new LegacyEnum(
          "V1 layer type",
          TYPES,
          "a V1 'layers' block takes one of Caffe's V1 enum types",
          "a V2 'layer' block takes a quoted type like \"Convolution\"");

  /** V1 data layer types and the parameter message whose transformation fields move. */
  private static final Map<String, String> DATA_PARAMS =
      Map.of(
          "DATA", "data_param",
          "IMAGE_DATA", "image_data_param",
          "WINDOW_DATA", "window_data_param");

  private static final List<String> TRANSFORM_FIELDS =
      List.of("scale", "mean_file", "crop_size", "mirror");

  /** V1 fields that become parts of the per-blob {@code param} blocks, in ParamSpec's order. */
  private static final Map<String, String> PARAM_SPEC =
      Map.of(
          "param", "name",
          "blob_share_mode", "share_mode",
          "blobs_lr", "lr_mult",
          "weight_decay", "decay_mult");

  /** Fields that keep their name and value (the {@code *_param} messages among them). */
  private static final Set<String> KEPT =
      Set.of(
          "bottom",
          "top",
          "name",
          "include",
          "exclude",
          "blobs",
          "loss_weight",
          "accuracy_param",
          "argmax_param",
          "concat_param",
          "contrastive_loss_param",
          "convolution_param",
          "data_param",
          "dropout_param",
          "dummy_data_param",
          "eltwise_param",
          "exp_param",
          "hdf5_data_param",
          "hdf5_output_param",
          "hinge_loss_param",
          "image_data_param",
          "infogain_loss_param",
          "inner_product_param",
          "lrn_param",
          "memory_data_param",
          "mvn_param",
          "pooling_param",
          "power_param",
          "relu_param",
          "sigmoid_param",
          "softmax_param",
          "slice_param",
          "tanh_param",
          "threshold_param",
          "window_data_param",
          "transform_param",
          "loss_param");

  private V1Layers() {}

  /**
   * Moves a V1 data layer's transformation fields into its {@code transform_param} (Caffe's
   * UpgradeNetDataTransformation); true when any moved.
   */
  static boolean moveTransformFields(Message layer) {
    String paramName = DATA_PARAMS.get(layer.value("type", ""));
    Message param = paramName == null ? null : layer.child(paramName);
    if (param == null) {
      return false;
    }
    boolean moved = false;
    for (String name : TRANSFORM_FIELDS) {
      Field f = param.first(name);
      if (f == null) {
        continue;
      }
      param.remove(name);
      Message transform = layer.child("transform_param");
      if (transform == null) {
        transform = new Message();
        layer.add(Field.message("transform_param", transform));
      }
      transform.remove(name);
      transform.add(f);
      moved = true;
    }
    return moved;
  }

  /**
   * The V2 layer of V1 {@code layer}: name, type, bottoms, tops, the per-blob param blocks, then
   * the other fields in the order written.
   *
   * @param what "source, layers #i" for messages
   */
  static Message toV2(Message layer, String what) {
    Message out = new Message();
    copy(layer, out, "name");
    Field type = layer.first("type");
    if (type != null) {
      out.add(Field.string("type", TYPE.upgrade(type, what)));
    }
    copy(layer, out, "bottom");
    copy(layer, out, "top");
    for (Message spec : paramSpecs(layer)) {
      out.add(Field.message("param", spec));
    }
    for (Field f : layer.fields()) {
      String n = f.name();
      if (n.equals("name") || n.equals("type") || n.equals("bottom") || n.equals("top")) {
        continue;
      }
      if (PARAM_SPEC.containsKey(n)) {
        continue;
      }
      if (!KEPT.contains(n)) {
        throw new IllegalArgumentException(
            what
                + ", "
                + f.where()
                + ": V1 field '"
                + n
                + "' has no equivalent in a V2 layer (Caffe's upgrade ignores it);"
                + " remove it or rewrite the layer as a V2 'layer' block");
      }
      out.add(f);
    }
    return out;
  }

  /** One ParamSpec per blob index: name, share_mode, lr_mult, decay_mult, as Caffe fills them. */
  private static List<Message> paramSpecs(Message layer) {
    List<Message> specs = new ArrayList<>();
    for (String v1 : List.of("param", "blob_share_mode", "blobs_lr", "weight_decay")) {
      List<Field> values = layer.all(v1);
      for (int i = 0; i < values.size(); i++) {
        while (specs.size() <= i) {
          specs.add(new Message());
        }
        Field f = values.get(i);
        specs
            .get(i)
            .add(new Field(PARAM_SPEC.get(v1), f.value(), f.quoted(), null, f.line(), f.column()));
      }
    }
    return specs;
  }

  private static void copy(Message from, Message to, String name) {
    for (Field f : from.all(name)) {
      to.add(f);
    }
  }
}
