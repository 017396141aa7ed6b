package org.sparknet.caffe.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bytedeco.caffe.FloatLayerRegistry;
import org.bytedeco.caffe.StringVector;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The layers of a net as Caffe will build them from the JVM: every layer type known to this Caffe
 * build (older formats are already upgraded, see {@link NetUpgrade}), and each data layer (which
 * would read a database or files) replaced by an {@code Input} layer with its tops, of the batch
 * size it declares, keeping its {@code transform_param} for the feeding side.
 */
public final class DataLayers {
  /** Layer types that read data themselves; each is replaced by an Input layer with its tops. */
  public static final Set<String> TYPES =
      Set.of("Data", "ImageData", "HDF5Data", "MemoryData", "WindowData");

  private static volatile Set<String> layerTypes;

  private DataLayers() {}

  /** {@code net} with its data layers as Input layers; throws on a layer Caffe cannot build. */
  static Message toInputLayers(Message net, String source, List<Integer> sampleShape) {
    Set<String> known = knownLayerTypes();
    Message out = new Message();
    int index = 0;
    for (Field f : net.fields()) {
      if (!f.name().equals("layer")) {
        out.add(f);
        continue;
      }
      Message layer = f.message();
      String type = layer.value("type", null);
      if (type == null) {
        throw new IllegalArgumentException(
            NetPlan.describe(layer, index, source) + ", " + f.where() + ": the layer has no type");
      }
      if (!known.contains(type)) {
        throw new IllegalArgumentException(
            NetPlan.describe(layer, index, source)
                + ", "
                + f.where()
                + ": unknown layer type '"
                + type
                + "'; this Caffe knows "
                + new TreeSet<>(known));
      }
      if (TYPES.contains(type)) {
        out.add(Field.message("layer", toInput(layer, index, source, sampleShape)));
      } else {
        out.add(f);
      }
      index++;
    }
    return out;
  }

  /** Layer types registered in this Caffe build. */
  static Set<String> knownLayerTypes() {
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

  private static Message toInput(
      Message layer, int index, String source, List<Integer> sampleShape) {
    String what = NetPlan.describe(layer, index, source);
    int batch = batchSize(layer, what);
    List<Integer> sample = sampleOf(layer, what, sampleShape);
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
      checkMeanValues(transform, what, sample.get(0));
    }
    Message input = new Message();
    input.add(Field.string("name", NetPlan.layerName(layer, index)));
    input.add(Field.string("type", "Input"));
    for (String t : tops) {
      input.add(Field.string("top", t));
    }
    for (Field f : layer.fields()) {
      if (f.name().equals("include") || f.name().equals("exclude")) {
        input.add(f);
      }
    }
    // keep the transform in a form PhaseInputs reads back
    if (transform != null) {
      input.add(Field.message("transform_param", transform));
    }
    input.add(Field.message("input_param", inputParam(batch, sample, crop, tops.size() == 2)));
    return input;
  }

  private static int batchSize(Message layer, String what) {
    String paramName =
        switch (layer.value("type", "")) {
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
    return Integer.parseInt(bs);
  }

  /** The shape of one example: MemoryData declares it, other data layers take the definition's. */
  private static List<Integer> sampleOf(Message layer, String what, List<Integer> sampleShape) {
    String type = layer.value("type", "");
    List<Integer> sample = sampleShape;
    if (type.equals("MemoryData")) {
      Message p = layer.child("memory_data_param");
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
              + ", which does not declare the shape of an example: set it (for MNIST [1, 28, 28])"
              + " with --sample-shape on the command line, inputShape on a Spark ML stage, or"
              + " NetDefinition.sampleShape in Java");
    }
    for (int d : sample) {
      if (d <= 0) {
        throw new IllegalArgumentException(
            what + ": every dimension of the sample shape must be positive, got " + sample);
      }
    }
    return sample;
  }

  private static void checkMeanValues(Message transform, String what, int channels) {
    List<String> means = transform.values("mean_value");
    if (!means.isEmpty() && means.size() != 1 && means.size() != channels) {
      throw new IllegalArgumentException(
          what
              + ": transform_param has "
              + means.size()
              + " mean_value entries but the data has "
              + channels
              + " channels: give 1 or "
              + channels);
    }
  }

  /** [batch] + the example shape (cropped: crop x crop), and [batch] for the label top. */
  private static Message inputParam(int batch, List<Integer> sample, int crop, boolean label) {
    Message ip = new Message();
    Message dataShape = new Message();
    dataShape.add(Field.scalar("dim", Integer.toString(batch)));
    for (int i = 0; i < sample.size(); i++) {
      // a crop makes the blob crop_size x crop_size (Caffe's DataTransformer::InferBlobShape)
      int d = crop > 0 && i > 0 ? crop : sample.get(i);
      dataShape.add(Field.scalar("dim", Integer.toString(d)));
    }
    ip.add(Field.message("shape", dataShape));
    if (label) {
      Message labelShape = new Message();
      labelShape.add(Field.scalar("dim", Integer.toString(batch)));
      ip.add(Field.message("shape", labelShape));
    }
    return ip;
  }

  static boolean isTrue(String v) {
    return v.equals("true") || v.equals("t") || v.equals("1");
  }

  /**
   * Checks a data layer's transform_param against what Caffe's DataTransformer would CHECK at run
   * time (it aborts the JVM there): a crop within the example, not both mean_file and mean_value, a
   * readable mean file. force_color/force_gray decode images, which fed data never needs.
   */
  static void checkTransform(Message transform, String what, List<Integer> sample) {
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
      checkMeanFile(transform, meanFile, what);
    }
  }

  private static void checkMeanFile(Message transform, Field meanFile, String what) {
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
