package org.sparknet.caffe.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The input blobs of one net state (phase, level, stages: {@link NetState}) of a net whose data
 * layers are already Input layers, checked as Caffe would build the net in that state: every bottom
 * produced by an earlier layer of the phase, one batch size for every input, shapes that agree with
 * the definition's sample shape, and the bounds of each fed label (the classes of the classifier
 * reading it, or an Embed's input_dim), which Caffe would not check before reading past a weight
 * matrix.
 */
final class PhaseInputs {
  /** Layers that consume (prediction, label) and need 0 <= label < classes. */
  private static final Set<String> CLASSIFIER_TYPES =
      Set.of("SoftmaxWithLoss", "Accuracy", "MultinomialLogisticLoss", "InfogainLoss", "HingeLoss");

  private final String source;
  private final String stateName;
  private final List<Integer> sampleShape;
  private final List<Message> layers = new ArrayList<>();
  private final List<Integer> indices = new ArrayList<>();
  private final Map<String, InputBlob> inputs = new LinkedHashMap<>();
  private final Set<String> available = new LinkedHashSet<>();
  private final Map<String, Integer> classesOfBlob = new HashMap<>();
  private Integer batch;
  private String batchFrom;

  private PhaseInputs(String source, NetState state, List<Integer> sampleShape) {
    this.source = source;
    this.stateName =
        "phase "
            + state.phase()
            + (state.stages().isEmpty() ? "" : " stages " + state.stages())
            + (state.level() == 0 ? "" : " level " + state.level());
    this.sampleShape = sampleShape;
  }

  /** The inputs of the net in {@code state}, in the order the net declares them. */
  static List<InputBlob> of(Message net, String source, NetState state, List<Integer> sampleShape) {
    PhaseInputs p = new PhaseInputs(source, state, sampleShape);
    int index = 0;
    for (Field f : net.all("layer")) {
      if (StateRules.included(f.message(), state, NetPlan.describe(f.message(), index, source))) {
        p.layers.add(f.message());
        p.indices.add(index);
      }
      index++;
    }
    for (int k = 0; k < p.layers.size(); k++) {
      p.visit(k);
    }
    return List.copyOf(p.inputs.values());
  }

  private void visit(int k) {
    Message layer = layers.get(k);
    String what = NetPlan.describe(layer, indices.get(k), source) + " in " + stateName;
    for (String b : layer.values("bottom")) {
      if (!available.contains(b)) {
        throw new IllegalArgumentException(
            what
                + " reads bottom '"
                + b
                + "' that no earlier layer of this phase produces; blobs available there: "
                + available);
      }
    }
    String type = layer.value("type", "");
    List<String> tops = layer.values("top");
    checkTops(layer, tops, what);
    if (type.equals("Input")) {
      addInputs(layer, NetPlan.layerName(layer, indices.get(k)), tops, what);
    }
    if (type.equals("Embed")) {
      // Caffe only DCHECKs the indices (compiled out): an index >= input_dim reads past the
      // weight matrix. Bound the fed blob like a label.
      List<String> bottoms = layer.values("bottom");
      Message ep = layer.child("embed_param");
      int dim = ep == null ? 0 : Integer.parseInt(ep.value("input_dim", "0"));
      if (!bottoms.isEmpty() && inputs.containsKey(bottoms.get(0)) && dim > 0) {
        bound(bottoms.get(0), dim, null);
      }
    }
    if (CLASSIFIER_TYPES.contains(type)) {
      boundLabels(layer, k);
    }
    available.addAll(tops);
  }

  /** Caffe's Net::AppendTop: a top already made is an error unless the layer works in place. */
  private void checkTops(Message layer, List<String> tops, String what) {
    List<String> bottoms = layer.values("bottom");
    for (int t = 0; t < tops.size(); t++) {
      String top = tops.get(t);
      boolean inPlace = t < bottoms.size() && bottoms.get(t).equals(top);
      if (available.contains(top) && !inPlace) {
        throw new IllegalArgumentException(
            what
                + ": top '"
                + top
                + "' is produced by an earlier layer too; Caffe takes one producer per blob"
                + " (in place only as the same bottom and top): rename one, or give the layers"
                + " include/exclude rules that keep them apart");
      }
    }
  }

  private void addInputs(Message layer, String layerName, List<String> tops, String what) {
    Message ip = layer.child("input_param");
    List<Field> shapes = ip == null ? List.of() : ip.all("shape");
    if (shapes.size() != 1 && shapes.size() != tops.size()) {
      throw new IllegalArgumentException(
          what
              + ": input_param needs one shape, or one per top ("
              + tops.size()
              + "), but has "
              + shapes.size());
    }
    Message transform = layer.child("transform_param");
    for (int t = 0; t < tops.size(); t++) {
      String top = tops.get(t);
      Message sm = shapes.get(shapes.size() == 1 ? 0 : t).message();
      int[] shape = sm.values("dim").stream().mapToInt(Integer::parseInt).toArray();
      checkShape(shape, top, what);
      int crop =
          t == 0 && transform != null ? Integer.parseInt(transform.value("crop_size", "0")) : 0;
      if (t == 0 && sampleShape != null && crop == 0 && shape.length > 1) {
        checkSample(shape, top, what);
      }
      InputBlob in = InputBlob.of(top, layerName, shape);
      if (t == 0 && transform != null) {
        in = in.withTransform(transformOf(transform, what, top, shape, crop));
      }
      inputs.put(top, in);
    }
  }

  private void checkShape(int[] shape, String top, String what) {
    if (shape.length == 0) {
      throw new IllegalArgumentException(what + ": the shape of top '" + top + "' has no dim");
    }
    for (int d : shape) {
      if (d <= 0) {
        throw new IllegalArgumentException(
            what
                + ": top '"
                + top
                + "' has shape "
                + Arrays.toString(shape)
                + "; every dim must be positive");
      }
    }
    if (batch == null) {
      batch = shape[0];
      batchFrom = top;
    } else if (shape[0] != batch) {
      throw new IllegalArgumentException(
          what
              + ": Input shape "
              + Arrays.toString(shape)
              + " of top '"
              + top
              + "' is inconsistent with the batch size "
              + batch
              + " of '"
              + batchFrom
              + "': every input must have the same first dim");
    }
  }

  private void checkSample(int[] shape, String top, String what) {
    List<Integer> declared = exampleOf(shape);
    if (!declared.equals(sampleShape)) {
      throw new IllegalArgumentException(
          what
              + ": Input top '"
              + top
              + "' declares examples of shape "
              + declared
              + " but the definition's sampleShape is "
              + sampleShape);
    }
  }

  private InputBlob.Transform transformOf(
      Message transform, String what, String top, int[] shape, int crop) {
    DataLayers.checkTransform(
        transform, what, sampleShape != null ? sampleShape : exampleOf(shape));
    float scale = Float.parseFloat(transform.value("scale", "1"));
    float[] mean = null;
    List<String> means = transform.values("mean_value");
    if (!means.isEmpty()) {
      mean = new float[means.size()];
      for (int i = 0; i < mean.length; i++) {
        mean[i] = Float.parseFloat(means.get(i));
      }
    }
    boolean mirror = DataLayers.isTrue(transform.value("mirror", "false"));
    String mf = transform.value("mean_file", null);
    Path meanFile = mf == null ? null : Path.of(mf).toAbsolutePath();
    int[] feedShape = crop > 0 ? croppedFeedShape(what, top, shape, crop) : null;
    return new InputBlob.Transform(scale, mean, crop, mirror, meanFile, feedShape);
  }

  /** [batch] + the uncropped example shape, for an Input blob of [batch, C, crop, crop]. */
  private int[] croppedFeedShape(String what, String top, int[] shape, int crop) {
    if (sampleShape == null
        || sampleShape.size() != 3
        || shape.length != 4
        || shape[1] != sampleShape.get(0)
        || shape[2] != crop
        || shape[3] != crop
        || sampleShape.get(1) < crop
        || sampleShape.get(2) < crop) {
      throw new IllegalArgumentException(
          what
              + ": top '"
              + top
              + "' is cropped to "
              + crop
              + " (transform_param.crop_size), so its shape must be [batch, channels, "
              + crop
              + ", "
              + crop
              + "] and the definition's sampleShape the uncropped [channels, height, width]; found"
              + " shape "
              + Arrays.toString(shape)
              + " and sampleShape "
              + sampleShape);
    }
    int[] feed = new int[4];
    feed[0] = shape[0];
    for (int i = 0; i < 3; i++) {
      feed[i + 1] = sampleShape.get(i);
    }
    return feed;
  }

  private static List<Integer> exampleOf(int[] shape) {
    List<Integer> l = new ArrayList<>();
    for (int i = 1; i < shape.length; i++) {
      l.add(shape[i]);
    }
    return l;
  }

  /** A classifier's label bottom, fed directly, is bounded by the classes of its prediction. */
  private void boundLabels(Message layer, int k) {
    List<String> bottoms = layer.values("bottom");
    if (bottoms.size() < 2 || !inputs.containsKey(bottoms.get(1))) {
      return;
    }
    int classes = classesOf(bottoms.get(0), k);
    Message lp = layer.child("loss_param");
    Message ap = layer.child("accuracy_param");
    String ignore = lp != null ? lp.value("ignore_label", null) : null;
    if (ignore == null && ap != null) {
      ignore = ap.value("ignore_label", null);
    }
    if (classes > 0) {
      bound(bottoms.get(1), classes, ignore == null ? null : Integer.valueOf(ignore));
    }
  }

  /** The tightest bound wins when several layers read one fed blob. */
  private void bound(String blob, int classes, Integer ignore) {
    Integer prev = classesOfBlob.get(blob);
    if (prev == null || classes < prev) {
      classesOfBlob.put(blob, classes);
      inputs.put(blob, inputs.get(blob).withLabelBounds(classes, ignore));
    }
  }

  /** num_output of the InnerProduct that produced {@code blob}, through in-place layers; or 0. */
  private int classesOf(String blob, int before) {
    for (int k = before - 1; k >= 0; k--) {
      Message l = layers.get(k);
      if (!l.values("top").contains(blob)) {
        continue;
      }
      if (l.values("bottom").contains(blob)) {
        continue; // in place (ReLU, Dropout): look further back
      }
      if (l.value("type", "").equals("InnerProduct")) {
        Message p = l.child("inner_product_param");
        String axis = p == null ? "1" : p.value("axis", "1");
        return p == null || !axis.equals("1") ? 0 : Integer.parseInt(p.value("num_output", "0"));
      }
      return 0;
    }
    return 0;
  }
}
