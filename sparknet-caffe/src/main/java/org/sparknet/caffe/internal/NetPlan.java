package org.sparknet.caffe.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatLayerRegistry;
import org.bytedeco.caffe.FloatSolverRegistry;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.StringVector;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A Caffe definition checked and rewritten in Java before Caffe sees it: data layers become {@code
 * Input} layers fed from the JVM, Caffe's own testing, snapshots and display are switched off, the
 * seed and the device are applied. Every problem found throws {@link IllegalArgumentException}
 * naming the file, layer and field.
 */
public final class NetPlan {
  /** Layer types that read data themselves; each is replaced by an Input layer with its tops. */
  public static final Set<String> DATA_LAYER_TYPES =
      Set.of("Data", "ImageData", "HDF5Data", "MemoryData", "WindowData");

  static final List<String> LR_POLICIES =
      List.of("fixed", "step", "exp", "inv", "multistep", "poly", "sigmoid");

  private static final Map<String, String> LEGACY_SOLVER_TYPES =
      Map.of(
          "SGD", "SGD",
          "NESTEROV", "Nesterov",
          "ADAGRAD", "AdaGrad",
          "RMSPROP", "RMSProp",
          "ADADELTA", "AdaDelta",
          "ADAM", "Adam");

  /** Layers that consume (prediction, label) and need 0 <= label < classes. */
  private static final Set<String> CLASSIFIER_TYPES =
      Set.of("SoftmaxWithLoss", "Accuracy", "MultinomialLogisticLoss", "InfogainLoss", "HingeLoss");

  /**
   * One input blob of a phase: shape, the transform to apply after feeding, label bounds.
   *
   * <p>{@code shape} is the blob's; {@code feedShape} is what the feeder writes, larger than {@code
   * shape} when the transform crops ({@code crop_size}). With a crop, a mirror or a mean file the
   * feeder writes into a staging array and Caffe's DataTransformer arithmetic copies it into the
   * blob; otherwise the feeder writes into the blob and scale/mean_value apply in place.
   */
  public record InputBlob(
      String name,
      String layer,
      int[] shape,
      float scale,
      float[] mean,
      int numClasses,
      Integer ignoreLabel,
      int[] feedShape,
      int cropSize,
      boolean mirror,
      Path meanFile) {
    public InputBlob {
      if (feedShape == null) {
        feedShape = shape;
      }
    }

    public InputBlob(
        String name,
        String layer,
        int[] shape,
        float scale,
        float[] mean,
        int numClasses,
        Integer ignoreLabel) {
      this(name, layer, shape, scale, mean, numClasses, ignoreLabel, shape, 0, false, null);
    }

    /** Scale or mean_value only: applied in place in the blob after feeding. */
    public boolean hasTransform() {
      return scale != 1f || mean != null;
    }

    /** A crop, a mirror or a mean file: fed through a staging array of {@link #feedShape}. */
    public boolean staged() {
      return cropSize > 0 || mirror || meanFile != null;
    }

    InputBlob withLabelBounds(int classes, Integer ignore) {
      return new InputBlob(
          name, layer, shape, scale, mean, classes, ignore, feedShape, cropSize, mirror, meanFile);
    }
  }

  private final String netName;
  private final String solverType;
  private final Message solver;
  private final Message testNet;
  private final Map<Phase, List<InputBlob>> inputs;

  private NetPlan(
      String netName,
      String solverType,
      Message solver,
      Message testNet,
      Map<Phase, List<InputBlob>> inputs) {
    this.netName = netName;
    this.solverType = solverType;
    this.solver = solver;
    this.testNet = testNet;
    this.inputs = inputs;
  }

  public String netName() {
    return netName;
  }

  public String solverType() {
    return solverType;
  }

  /** The solver, ready for Caffe: net_param embedded, testing and snapshots off. */
  public String solverText() {
    return TextFormat.print(solver);
  }

  /** The TEST-phase net, ready for Caffe. */
  public String testNetText() {
    return TextFormat.print(testNet);
  }

  public List<InputBlob> inputs(Phase phase) {
    return inputs.get(phase);
  }

  // ---------------------------------------------------------------- building

  public static NetPlan of(NetDefinition def) {
    // Checking asks Caffe's registries and parsers, which hand back temporary strings and protos;
    // the scope frees every one of them (a plan holds no native state).
    try (PointerScope scope = new PointerScope()) {
      return check(def);
    }
  }

  private static NetPlan check(NetDefinition def) {
    if (!def.engine().equals("caffe")) {
      throw new IllegalArgumentException(
          "This definition is for engine '" + def.engine() + "', not 'caffe'");
    }
    int deviceId = CaffeRuntime.deviceId(def.device());
    CaffeRuntime.checkDevice(def.device());

    Message solver = TextFormat.parse(def.solverText(), "solver definition");
    ProtoSchema.checkSolver(solver, "solver definition");

    Message net;
    String netSource;
    if (def.netText() != null) {
      netSource = "net definition";
      net = TextFormat.parse(def.netText(), netSource);
      ProtoSchema.checkNet(net, netSource);
    } else {
      netSource = "solver definition (net_param)";
      Message embedded = solver.child("net_param");
      if (embedded == null) {
        embedded = solver.child("train_net_param");
      }
      if (embedded == null) {
        String file = solver.value("net", solver.value("train_net", null));
        if (file != null) {
          throw new IllegalArgumentException(
              "The solver definition names the net file '"
                  + file
                  + "' but no net text was given: pass that file's contents as"
                  + " NetDefinition.netText, or embed the net in the solver as net_param { ... }");
        }
        throw new IllegalArgumentException(
            "The solver definition has no net: give NetDefinition.netText or a net_param { ... }"
                + " in the solver");
      }
      net = embedded.copy();
    }

    Message train = rewriteNet(net, netSource, def.sampleShape());
    Map<Phase, List<InputBlob>> inputs = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      inputs.put(phase, checkPhase(train, netSource, phase, def.sampleShape()));
    }
    checkLayerArity(train, netSource);

    String type = solverType(solver);
    Message s = rewriteSolver(solver, type, train, def.seed(), deviceId);
    Message test = train.copy();
    test.remove("state");
    Message state = new Message();
    state.add(Field.scalar("phase", "TEST"));
    test.add(Field.message("state", state));
    return new NetPlan(train.value("name", "net"), type, s, test, inputs);
  }

  // ---------------------------------------------------------------- the net

  private static String layerName(Message layer, int index) {
    return layer.value("name", "#" + index);
  }

  private static String describe(Message layer, int index, String source) {
    return source + ", layer '" + layerName(layer, index) + "' (" + layer.value("type", "?") + ")";
  }

  private static Message rewriteNet(Message net, String source, List<Integer> sampleShape) {
    if (net.has("layers")) {
      Field f = net.first("layers");
      throw new IllegalArgumentException(
          source
              + ", "
              + f.where()
              + ": V1 'layers' blocks are not supported; upgrade the file with Caffe's"
              + " upgrade_net_proto_text tool (it writes 'layer' blocks)");
    }
    for (String legacy : List.of("input", "input_shape", "input_dim")) {
      if (net.has(legacy)) {
        throw new IllegalArgumentException(
            source
                + ", "
                + net.first(legacy).where()
                + ": net-level '"
                + legacy
                + "' is not supported; declare the inputs with an Input layer"
                + " (layer { type: \"Input\" top: ... input_param { shape { dim: ... } } })");
      }
    }
    Set<String> known = knownLayerTypes();
    Message out = new Message();
    List<Field> fields = net.fields();
    int index = 0;
    for (Field f : fields) {
      if (!f.name().equals("layer")) {
        out.add(f);
        continue;
      }
      Message layer = f.message();
      String type = layer.value("type", null);
      if (type == null) {
        throw new IllegalArgumentException(
            describe(layer, index, source) + ", " + f.where() + ": the layer has no type");
      }
      if (!known.contains(type)) {
        throw new IllegalArgumentException(
            describe(layer, index, source)
                + ", "
                + f.where()
                + ": unknown layer type '"
                + type
                + "'; this Caffe knows "
                + new java.util.TreeSet<>(known));
      }
      if (DATA_LAYER_TYPES.contains(type)) {
        out.add(Field.message("layer", dataToInput(layer, index, source, sampleShape)));
      } else {
        out.add(f);
      }
      index++;
    }
    return out;
  }

  private static volatile Set<String> layerTypes;

  /** Layer types registered in this Caffe build. */
  public static Set<String> knownLayerTypes() {
    Set<String> t = layerTypes;
    if (t == null) {
      CaffeRuntime.load();
      Set<String> s = new LinkedHashSet<>();
      try (PointerScope scope = new PointerScope()) {
        StringVector v = FloatLayerRegistry.LayerTypeList();
        for (long i = 0; i < v.size(); i++) {
          s.add(v.get(i).getString());
        }
      }
      t = Set.copyOf(s);
      layerTypes = t;
    }
    return t;
  }

  private static Message dataToInput(
      Message layer, int index, String source, List<Integer> sampleShape) {
    String type = layer.value("type", "");
    String what = describe(layer, index, source);
    String paramName =
        switch (type) {
          case "Data" -> "data_param";
          case "ImageData" -> "image_data_param";
          case "HDF5Data" -> "hdf5_data_param";
          case "MemoryData" -> "memory_data_param";
          default -> "window_data_param";
        };
    Message p = layer.child(paramName);
    String bs = p == null ? null : p.value("batch_size", null);
    if (bs == null || Long.parseLong(bs) <= 0) {
      throw new IllegalArgumentException(
          what + ": " + paramName + ".batch_size must be given and positive");
    }
    int batch = Integer.parseInt(bs);
    List<Integer> sample = sampleShape;
    if (type.equals("MemoryData")) {
      List<Integer> declared =
          List.of(
              Integer.parseInt(p.value("channels", "0")),
              Integer.parseInt(p.value("height", "0")),
              Integer.parseInt(p.value("width", "0")));
      if (sample != null && !sample.equals(declared)) {
        throw new IllegalArgumentException(
            what
                + ": memory_data_param declares examples of shape "
                + declared
                + " but the definition's sampleShape is "
                + sample);
      }
      sample = declared;
    }
    if (sample == null) {
      throw new IllegalArgumentException(
          what
              + " reads its data from a "
              + (type.equals("Data") ? "database" : "file")
              + ", which does not declare the shape of an example: set NetDefinition.sampleShape"
              + " (for MNIST [1, 28, 28])");
    }
    for (int d : sample) {
      if (d <= 0) {
        throw new IllegalArgumentException(
            what + ": every dimension of the sample shape must be positive, got " + sample);
      }
    }
    List<String> tops = layer.values("top");
    if (tops.isEmpty() || tops.size() > 2) {
      throw new IllegalArgumentException(
          what + ": a data layer needs one or two tops (data, label) but has " + tops);
    }
    Message transform = layer.child("transform_param");
    int crop = 0;
    if (transform != null) {
      checkTransform(transform, what, sample);
      crop = Integer.parseInt(transform.value("crop_size", "0"));
      List<String> means = transform.values("mean_value");
      if (!means.isEmpty() && means.size() != 1 && means.size() != sample.get(0)) {
        throw new IllegalArgumentException(
            what
                + ": transform_param has "
                + means.size()
                + " mean_value entries but the data has "
                + sample.get(0)
                + " channels: give 1 or "
                + sample.get(0));
      }
    }
    Message input = new Message();
    input.add(Field.string("name", layerName(layer, index)));
    input.add(Field.string("type", "Input"));
    for (String t : tops) {
      input.add(Field.string("top", t));
    }
    for (Field f : layer.fields()) {
      if (f.name().equals("include") || f.name().equals("exclude")) {
        input.add(f);
      }
    }
    // keep the transform in a form this class reads back in checkPhase
    if (transform != null) {
      input.add(Field.message("transform_param", transform));
    }
    Message ip = new Message();
    Message dataShape = new Message();
    dataShape.add(Field.scalar("dim", Integer.toString(batch)));
    for (int i = 0; i < sample.size(); i++) {
      // a crop makes the blob crop_size x crop_size (Caffe's DataTransformer::InferBlobShape)
      int d = crop > 0 && i > 0 ? crop : sample.get(i);
      dataShape.add(Field.scalar("dim", Integer.toString(d)));
    }
    ip.add(Field.message("shape", dataShape));
    if (tops.size() == 2) {
      Message labelShape = new Message();
      labelShape.add(Field.scalar("dim", Integer.toString(batch)));
      ip.add(Field.message("shape", labelShape));
    }
    input.add(Field.message("input_param", ip));
    return input;
  }

  private static List<Integer> exampleOf(int[] shape) {
    List<Integer> l = new ArrayList<>();
    for (int i = 1; i < shape.length; i++) {
      l.add(shape[i]);
    }
    return l;
  }

  private static boolean isTrue(String v) {
    return v.equals("true") || v.equals("t") || v.equals("1");
  }

  /**
   * Checks a data layer's transform_param against what Caffe's DataTransformer would CHECK at run
   * time (it aborts the JVM there): a crop within the example, not both mean_file and mean_value, a
   * readable mean file. force_color/force_gray decode images, which fed data never needs.
   */
  private static void checkTransform(Message transform, String what, List<Integer> sample) {
    for (String field : List.of("force_color", "force_gray")) {
      Field f = transform.first(field);
      if (f != null && isTrue(f.value())) {
        throw new IllegalArgumentException(
            what
                + ", "
                + f.where()
                + ": transform_param."
                + field
                + " applies to encoded images, which SparkNet decodes before feeding; remove it");
      }
    }
    Field cropField = transform.first("crop_size");
    if (cropField != null) {
      int crop = Integer.parseInt(cropField.value());
      if (crop < 0
          || (crop > 0 && (sample.size() != 3 || crop > Math.min(sample.get(1), sample.get(2))))) {
        throw new IllegalArgumentException(
            what
                + ", "
                + cropField.where()
                + ": transform_param.crop_size "
                + crop
                + " does not fit examples of shape "
                + sample
                + " (a crop needs [channels, height, width] with height and width >= crop_size)");
      }
    }
    Field meanFile = transform.first("mean_file");
    if (meanFile != null) {
      if (!transform.values("mean_value").isEmpty()) {
        throw new IllegalArgumentException(
            what
                + ", "
                + meanFile.where()
                + ": transform_param has both mean_file and mean_value; give one");
      }
      Path p = Path.of(meanFile.value()).toAbsolutePath();
      if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
        throw new IllegalArgumentException(
            what
                + ", "
                + meanFile.where()
                + ": transform_param.mean_file "
                + meanFile.value()
                + " does not exist or is unreadable (resolved against the working directory, as"
                + " Caffe does: "
                + p
                + "); compute the mean image (Caffe's compute_image_mean) or use mean_value");
      }
    }
  }

  /** [batch] + the uncropped example shape, for an Input blob of [batch, C, crop, crop]. */
  private static int[] croppedFeedShape(
      String what, String top, int[] shape, int crop, List<Integer> sampleShape) {
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

  /** Caffe's NetStateRule for a state with the given phase, level 0 and no stages. */
  static boolean included(Message layer, Phase phase) {
    List<Field> inc = layer.all("include");
    List<Field> exc = layer.all("exclude");
    if (!inc.isEmpty()) {
      for (Field f : inc) {
        if (meets(f.message(), phase)) {
          return true;
        }
      }
      return false;
    }
    for (Field f : exc) {
      if (meets(f.message(), phase)) {
        return false;
      }
    }
    return true;
  }

  private static boolean meets(Message rule, Phase phase) {
    String p = rule.value("phase", null);
    if (p != null && !p.equals(phase.name())) {
      return false;
    }
    if (rule.has("min_level") && Integer.parseInt(rule.value("min_level", "0")) > 0) {
      return false;
    }
    if (rule.has("max_level") && Integer.parseInt(rule.value("max_level", "0")) < 0) {
      return false;
    }
    return !rule.has("stage"); // the state has no stages
  }

  private static List<InputBlob> checkPhase(
      Message net, String source, Phase phase, List<Integer> sampleShape) {
    List<Message> layers = new ArrayList<>();
    List<Integer> indices = new ArrayList<>();
    int index = 0;
    for (Field f : net.all("layer")) {
      if (included(f.message(), phase)) {
        layers.add(f.message());
        indices.add(index);
      }
      index++;
    }
    Map<String, InputBlob> inputs = new LinkedHashMap<>();
    Set<String> available = new LinkedHashSet<>();
    Map<String, Integer> classesOfBlob = new HashMap<>();
    Integer batch = null;
    String batchFrom = null;
    for (int k = 0; k < layers.size(); k++) {
      Message layer = layers.get(k);
      String what = describe(layer, indices.get(k), source) + " in phase " + phase;
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
      if (type.equals("Input")) {
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
          Message sm = shapes.get(shapes.size() == 1 ? 0 : t).message();
          int[] shape = sm.values("dim").stream().mapToInt(Integer::parseInt).toArray();
          if (shape.length == 0) {
            throw new IllegalArgumentException(
                what + ": the shape of top '" + tops.get(t) + "' has no dim");
          }
          for (int d : shape) {
            if (d <= 0) {
              throw new IllegalArgumentException(
                  what
                      + ": top '"
                      + tops.get(t)
                      + "' has shape "
                      + Arrays.toString(shape)
                      + "; every dim must be positive");
            }
          }
          if (batch == null) {
            batch = shape[0];
            batchFrom = tops.get(t);
          } else if (shape[0] != batch) {
            throw new IllegalArgumentException(
                what
                    + ": Input shape "
                    + Arrays.toString(shape)
                    + " of top '"
                    + tops.get(t)
                    + "' is inconsistent with the batch size "
                    + batch
                    + " of '"
                    + batchFrom
                    + "': every input must have the same first dim");
          }
          int crop =
              t == 0 && transform != null ? Integer.parseInt(transform.value("crop_size", "0")) : 0;
          if (t == 0 && sampleShape != null && crop == 0 && shape.length > 1) {
            List<Integer> declared = new ArrayList<>();
            for (int i = 1; i < shape.length; i++) {
              declared.add(shape[i]);
            }
            if (!declared.equals(sampleShape)) {
              throw new IllegalArgumentException(
                  what
                      + ": Input top '"
                      + tops.get(t)
                      + "' declares examples of shape "
                      + declared
                      + " but the definition's sampleShape is "
                      + sampleShape);
            }
          }
          float scale = 1f;
          float[] mean = null;
          int[] feedShape = shape;
          boolean mirror = false;
          Path meanFile = null;
          if (t == 0 && transform != null) {
            checkTransform(transform, what, sampleShape != null ? sampleShape : exampleOf(shape));
            scale = Float.parseFloat(transform.value("scale", "1"));
            List<String> means = transform.values("mean_value");
            if (!means.isEmpty()) {
              mean = new float[means.size()];
              for (int i = 0; i < mean.length; i++) {
                mean[i] = Float.parseFloat(means.get(i));
              }
            }
            mirror = isTrue(transform.value("mirror", "false"));
            String mf = transform.value("mean_file", null);
            meanFile = mf == null ? null : Path.of(mf).toAbsolutePath();
            if (crop > 0) {
              feedShape = croppedFeedShape(what, tops.get(t), shape, crop, sampleShape);
            }
          }
          inputs.put(
              tops.get(t),
              new InputBlob(
                  tops.get(t),
                  layerName(layer, indices.get(k)),
                  shape,
                  scale,
                  mean,
                  0,
                  null,
                  feedShape,
                  crop,
                  mirror,
                  meanFile));
        }
      }
      if (type.equals("Embed")) {
        // Caffe only DCHECKs the indices (compiled out): an index >= input_dim reads past the
        // weight matrix. Bound the fed blob like a label.
        List<String> bottoms = layer.values("bottom");
        Message ep = layer.child("embed_param");
        int dim = ep == null ? 0 : Integer.parseInt(ep.value("input_dim", "0"));
        if (!bottoms.isEmpty() && inputs.containsKey(bottoms.get(0)) && dim > 0) {
          String blob = bottoms.get(0);
          Integer prev = classesOfBlob.get(blob);
          if (prev == null || dim < prev) {
            classesOfBlob.put(blob, dim);
            inputs.put(blob, inputs.get(blob).withLabelBounds(dim, null));
          }
        }
      }
      if (CLASSIFIER_TYPES.contains(type)) {
        List<String> bottoms = layer.values("bottom");
        if (bottoms.size() >= 2 && inputs.containsKey(bottoms.get(1))) {
          int classes = classesOf(bottoms.get(0), layers, k);
          Message lp = layer.child("loss_param");
          Message ap = layer.child("accuracy_param");
          String ignore = lp != null ? lp.value("ignore_label", null) : null;
          if (ignore == null && ap != null) {
            ignore = ap.value("ignore_label", null);
          }
          if (classes > 0) {
            String label = bottoms.get(1);
            Integer prev = classesOfBlob.get(label);
            if (prev == null || classes < prev) {
              classesOfBlob.put(label, classes);
              InputBlob in = inputs.get(label);
              inputs.put(
                  label,
                  in.withLabelBounds(classes, ignore == null ? null : Integer.valueOf(ignore)));
            }
          }
        }
      }
      available.addAll(tops);
    }
    return List.copyOf(inputs.values());
  }

  /** num_output of the InnerProduct that produced {@code blob}, through in-place layers; or 0. */
  private static int classesOf(String blob, List<Message> layers, int before) {
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

  /** Bottom and top counts that Caffe would CHECK, asked from each layer's own class. */
  private static void checkLayerArity(Message net, String source) {
    NetParameter np = new NetParameter();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.readText(TextFormat.print(net), np, source);
      List<Field> layers = net.all("layer");
      for (int i = 0; i < np.layer_size(); i++) {
        Message lm = layers.get(i).message();
        int nb = lm.all("bottom").size();
        int nt = lm.all("top").size();
        FloatLayer layer = FloatLayerRegistry.CreateLayer(np.layer(i));
        String what = describe(lm, i, source);
        arity(
            what,
            "bottom",
            nb,
            layer.ExactNumBottomBlobs(),
            layer.MinBottomBlobs(),
            layer.MaxBottomBlobs());
        if (!layer.AutoTopBlobs() || nt > 0) {
          arity(
              what, "top", nt, layer.ExactNumTopBlobs(), layer.MinTopBlobs(), layer.MaxTopBlobs());
        }
        if (layer.EqualNumBottomTopBlobs() && nb != nt) {
          throw new IllegalArgumentException(
              what
                  + " needs as many tops as bottoms but has "
                  + nb
                  + " bottoms and "
                  + nt
                  + " tops");
        }
      }
    } finally {
      np.close();
    }
  }

  private static void arity(String what, String kind, int n, int exact, int min, int max) {
    String need = null;
    if (exact >= 0 && n != exact) {
      need = "exactly " + exact;
    } else if (min >= 0 && n < min) {
      need = "at least " + min;
    } else if (max >= 0 && n > max) {
      need = "at most " + max;
    }
    if (need != null) {
      throw new IllegalArgumentException(
          what + " needs " + need + " " + kind + " blob(s) but has " + n);
    }
  }

  // ---------------------------------------------------------------- the solver

  private static String solverType(Message solver) {
    String type = solver.value("type", null);
    Field legacy = solver.first("solver_type");
    if (type == null && legacy != null) {
      type = LEGACY_SOLVER_TYPES.get(legacy.value());
    }
    if (type == null) {
      type = "SGD";
    }
    Set<String> known = new LinkedHashSet<>();
    try (PointerScope scope = new PointerScope()) {
      StringVector v = FloatSolverRegistry.SolverTypeList();
      for (long i = 0; i < v.size(); i++) {
        known.add(v.get(i).getString());
      }
    }
    if (!known.contains(type)) {
      Field f = solver.first("type");
      throw new IllegalArgumentException(
          "solver definition, "
              + (f == null ? "" : f.where() + ", ")
              + "field 'type': unknown solver type '"
              + type
              + "'; known types: "
              + known);
    }
    return type;
  }

  private static double number(Message m, String field, double dflt) {
    String v = m.value(field, null);
    return v == null ? dflt : Double.parseDouble(v.toLowerCase(Locale.ROOT).replace("f", ""));
  }

  private static Message rewriteSolver(
      Message solver, String type, Message trainNet, long seed, int deviceId) {
    String lr = solver.value("lr_policy", null);
    if (lr == null || !LR_POLICIES.contains(lr)) {
      Field f = solver.first("lr_policy");
      throw new IllegalArgumentException(
          "solver definition, "
              + (f == null ? "" : f.where() + ", ")
              + "field 'lr_policy': "
              + (lr == null ? "missing" : "unknown policy '" + lr + "'")
              + "; give one of "
              + LR_POLICIES);
    }
    if (lr.equals("step") && number(solver, "stepsize", 0) <= 0) {
      throw new IllegalArgumentException(
          "solver definition, field 'stepsize': lr_policy \"step\" needs stepsize > 0");
    }
    if (lr.equals("multistep")) {
      List<String> sv = solver.values("stepvalue");
      for (int i = 1; i < sv.size(); i++) {
        if (Long.parseLong(sv.get(i)) <= Long.parseLong(sv.get(i - 1))) {
          throw new IllegalArgumentException(
              "solver definition, field 'stepvalue': values must increase, got " + sv);
        }
      }
    }
    String reg = solver.value("regularization_type", "L2");
    if (!reg.equals("L1") && !reg.equals("L2")) {
      throw new IllegalArgumentException(
          "solver definition, field 'regularization_type': must be \"L1\" or \"L2\" but was \""
              + reg
              + "\"");
    }
    double momentum = number(solver, "momentum", 0);
    if ((type.equals("RMSProp") || type.equals("AdaGrad")) && momentum != 0) {
      throw new IllegalArgumentException(
          "solver definition, field 'momentum': the "
              + type
              + " solver does not use momentum, but momentum is "
              + momentum
              + "; remove it or set it to 0");
    }
    if (type.equals("RMSProp")) {
      double decay = number(solver, "rms_decay", 0.99);
      if (decay < 0 || decay > 1) {
        throw new IllegalArgumentException(
            "solver definition, field 'rms_decay': must lie in [0, 1] but is " + decay);
      }
    }
    if (number(solver, "iter_size", 1) < 1) {
      throw new IllegalArgumentException("solver definition, field 'iter_size': must be >= 1");
    }
    Message s = solver.copy();
    for (String f :
        List.of(
            "net",
            "net_param",
            "train_net",
            "train_net_param",
            "test_net",
            "test_net_param",
            "test_iter",
            "test_interval",
            "test_state",
            "test_compute_loss",
            "test_initialization",
            "snapshot",
            "snapshot_prefix",
            "snapshot_diff",
            "snapshot_format",
            "snapshot_after_train",
            "display",
            "debug_info",
            "solver_mode",
            "device_id",
            "random_seed",
            "solver_type",
            "type")) {
      s.remove(f);
    }
    s.add(Field.string("type", type));
    s.add(Field.message("net_param", trainNet));
    s.add(Field.scalar("test_interval", "0"));
    s.add(Field.scalar("test_initialization", "false"));
    s.add(Field.scalar("snapshot", "0"));
    s.add(Field.scalar("snapshot_after_train", "false"));
    s.add(Field.scalar("display", "0"));
    s.add(Field.scalar("random_seed", Long.toString(seed & 0x7fffffffffffffffL)));
    s.add(Field.scalar("solver_mode", deviceId < 0 ? "CPU" : "GPU"));
    s.add(Field.scalar("device_id", Integer.toString(Math.max(0, deviceId))));
    return s;
  }
}
