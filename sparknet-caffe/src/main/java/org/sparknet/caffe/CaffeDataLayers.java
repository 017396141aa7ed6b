package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.caffe.internal.DataLayers;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The data layers ({@code Data}, {@code ImageData}, ...) of unchanged Caffe files, rewritten as
 * text before a {@link org.sparknet.api.NetDefinition} is made of them: for a loader that feeds the
 * net from outside, and for benchmarks that feed fixed shapes.
 *
 * <p>{@link #rewrite} splits the image transforms between the loader and the net. Caffe's {@code
 * transform_param} fields {@code crop_size} and {@code mirror} stay in the net, where {@link
 * CaffeNet} applies them to every batch as Caffe's DataTransformer does (a random crop and flip in
 * TRAIN, drawn anew each time, a centre crop in TEST); {@link Overrides} replace them there. {@code
 * mean_file} is taken out of the net and its location handed back, for the loader to subtract from
 * the uncropped images (the same arithmetic as Caffe, which subtracts before cropping), unless
 * per-channel {@code mean_value}s override it; {@code scale} and {@code mean_value} stay in the
 * net.
 */
public final class CaffeDataLayers {
  private CaffeDataLayers() {}

  /**
   * What replaces the data layers' settings; a null field keeps what the net says.
   *
   * @param crop the crop_size of every data layer (0: no crop)
   * @param mirror true: flip training images; false: no flips in either phase
   * @param meanValues per-channel means in place of the net's mean_file or mean_value
   * @param batchSize the batch_size of every data layer's *data_param
   * @param baseDirs where a relative mean_file is looked for, in order
   */
  public record Overrides(
      Integer crop,
      Boolean mirror,
      List<Float> meanValues,
      Integer batchSize,
      List<StoragePath> baseDirs) {
    public Overrides {
      baseDirs = baseDirs == null ? List.of() : List.copyOf(baseDirs);
    }

    boolean addTransform() {
      return meanValues != null || crop != null || mirror != null;
    }
  }

  /**
   * The rewritten files and what the loader needs of them.
   *
   * @param solverText the solver (rewritten when it embeds the net)
   * @param netText the net, or null when the solver embeds it
   * @param cropSize the crop of the data layers (0 for none)
   * @param inputShape C,H,W of the first Input layer's first top, or null when there is none
   * @param meanFile the data layers' mean_file, located, or null
   */
  public record Rewritten(
      String solverText,
      String netText,
      int cropSize,
      List<Integer> inputShape,
      StoragePath meanFile) {}

  /**
   * Rewrites the data layers of a solver and net ({@code netText} null when the solver embeds the
   * net as net_param).
   *
   * @throws IllegalArgumentException naming {@code netSource} and the layer when data layers
   *     disagree on crop_size or mean_file, a mean_file is not found, or an override has no data
   *     layer to apply to
   */
  public static Rewritten rewrite(
      String solverText, String netText, String netSource, Overrides overrides) {
    boolean embedded = netText == null;
    Message root = TextFormat.parse(embedded ? solverText : netText, netSource);
    Message net = embedded ? embeddedNet(root) : root;
    if (net == null) {
      return new Rewritten(
          solverText, null, overrides.crop() == null ? 0 : overrides.crop(), null, null);
    }
    Rewriting r = new Rewriting(netSource, overrides);
    for (Field lf : net.all("layer")) {
      r.visit(lf.message());
    }
    if (r.dataLayers == 0 && (overrides.meanValues() != null || overrides.batchSize() != null)) {
      throw new IllegalArgumentException(
          netSource
              + " has no data layer (Data, ImageData, ...) whose transform_param or batch_size"
              + " --mean-value or --batch-size could replace; set them in its Input layers and"
              + " the data instead");
    }
    int cropSize = overrides.crop() != null ? overrides.crop() : r.netCrop == null ? 0 : r.netCrop;
    String text = TextFormat.print(root);
    return embedded
        ? new Rewritten(text, null, cropSize, r.inputShape, r.meanFile)
        : new Rewritten(solverText, text, cropSize, r.inputShape, r.meanFile);
  }

  /** The state of one pass over a net's layers. */
  private static final class Rewriting {
    private final String netSource;
    private final Overrides o;
    private Integer netCrop;
    private int dataLayers;
    private List<Integer> inputShape;
    private StoragePath meanFile;
    private String meanSource;

    Rewriting(String netSource, Overrides o) {
      this.netSource = netSource;
      this.o = o;
    }

    void visit(Message layer) {
      String type = layer.value("type", "");
      if (type.equals("Input") && inputShape == null) {
        inputShape = exampleShape(layer);
      }
      if (!DataLayers.TYPES.contains(type)) {
        return;
      }
      dataLayers++;
      if (o.batchSize() != null) {
        setBatchSize(layer, o.batchSize());
      }
      Message t = layer.child("transform_param");
      if (t == null && !o.addTransform()) {
        return;
      }
      if (t == null) {
        t = new Message();
        layer.add(Field.message("transform_param", t));
      }
      String where = netSource + ", layer '" + layer.value("name", "?") + "' (" + type + ")";
      takeCropAndMean(t, where);
      override(t, layer);
      if (t.fields().isEmpty()) {
        layer.remove("transform_param");
      }
    }

    /** Checks that the data layers agree on crop_size and mean_file, and locates the mean. */
    private void takeCropAndMean(Message t, String where) {
      int c = Integer.parseInt(t.value("crop_size", "0"));
      requireSame(where, "crop_size", c, netCrop, "SparkNet feeds both phases one input shape");
      netCrop = c;
      String named = t.value("mean_file", null);
      if (named != null && o.meanValues() == null) {
        requireSame(
            where,
            "mean_file",
            named,
            meanSource,
            "SparkNet subtracts one mean image in both phases");
        if (meanFile == null) {
          meanFile = locate(named, o.baseDirs(), where);
          meanSource = named;
        }
      }
      t.remove("mean_file");
    }

    /**
     * Both phases are fed alike, so every data layer must give a transform_param field the same
     * value; {@code other} is another layer's (null when none was seen). Strings are shown quoted.
     */
    private static void requireSame(
        String where, String field, Object value, Object other, String why) {
      if (other != null && !other.equals(value)) {
        throw new IllegalArgumentException(
            where
                + ": transform_param."
                + field
                + " "
                + shown(value)
                + " differs from another data layer's "
                + shown(other)
                + "; "
                + why);
      }
    }

    private static String shown(Object v) {
      return v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
    }

    private void override(Message t, Message layer) {
      if (o.crop() != null) {
        t.remove("crop_size");
        if (o.crop() > 0) {
          t.add(Field.scalar("crop_size", Integer.toString(o.crop())));
        }
      }
      if (o.mirror() != null) {
        // mirror true flips training images; mirror false turns flips off in both phases
        t.remove("mirror");
        if (o.mirror() && !"TEST".equals(phase(layer))) {
          t.add(Field.scalar("mirror", "true"));
        }
      }
      if (o.meanValues() != null) {
        t.remove("mean_value");
        for (float v : o.meanValues()) {
          t.add(Field.scalar("mean_value", Float.toString(v)));
        }
      }
    }
  }

  private static void setBatchSize(Message layer, int batchSize) {
    for (Field pf : layer.fields()) {
      if (pf.isMessage() && pf.name().endsWith("data_param")) {
        pf.message().set("batch_size", Integer.toString(batchSize));
      }
    }
  }

  /** C,H,W of an Input layer's first shape when it has four dims, else null. */
  private static List<Integer> exampleShape(Message input) {
    Message ip = input.child("input_param");
    Message shape = ip == null ? null : ip.child("shape");
    if (shape == null) {
      return null;
    }
    List<Integer> dims = new ArrayList<>();
    for (String d : shape.values("dim")) {
      dims.add(Integer.parseInt(d));
    }
    return dims.size() == 4 ? dims.subList(1, 4) : null;
  }

  /**
   * A relative mean_file is looked for in each base directory (on that directory's file system); an
   * absolute path or a URI stands as written.
   */
  private static StoragePath locate(String meanFile, List<StoragePath> baseDirs, String where) {
    List<StoragePath> tried = new ArrayList<>();
    boolean relative =
        !meanFile.startsWith("/") && !meanFile.matches("^[A-Za-z][A-Za-z0-9+.-]*:.*");
    if (!relative || baseDirs.isEmpty()) {
      tried.add(StoragePath.of(meanFile));
    } else {
      for (StoragePath dir : baseDirs) {
        StoragePath p = dir.resolve(meanFile);
        if (!tried.contains(p)) {
          tried.add(p);
        }
      }
    }
    for (StoragePath p : tried) {
      if (p.isFile()) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        where
            + ": transform_param.mean_file \""
            + meanFile
            + "\" is at none of "
            + tried
            + "; put it there, or pass --mean-value V[,V...] to subtract per-channel means"
            + " instead");
  }

  private static Message embeddedNet(Message solver) {
    Message m = solver.child("net_param");
    return m != null ? m : solver.child("train_net_param");
  }

  private static String phase(Message layer) {
    Message inc = layer.child("include");
    return inc == null ? null : inc.value("phase", null);
  }

  /**
   * The net text with every {@code Data} layer replaced by an {@code Input} layer with the same
   * name, tops and phase, shaped [batch, channels, side, side] and [batch], {@code trainBatch} in
   * TRAIN and {@code testBatch} in TEST: the crop, mirror and mean image go with the Data layers
   * (the inputs are fed at the size the net reads).
   */
  public static String toInputLayers(
      String netText, int channels, int side, int trainBatch, int testBatch) {
    Message m = TextFormat.parse(netText, "net");
    List<Field> fields = m.fields();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      if (!f.name().equals("layer") || !"Data".equals(f.message().value("type", null))) {
        continue;
      }
      Message layer = f.message();
      String phase = phase(layer);
      int batch = "TEST".equals(phase) ? testBatch : trainBatch;
      StringBuilder text = new StringBuilder("layer {\n");
      text.append("  name: \"").append(layer.value("name", "data")).append("\"\n");
      text.append("  type: \"Input\"\n");
      for (String top : layer.values("top")) {
        text.append("  top: \"").append(top).append("\"\n");
      }
      if (phase != null) {
        text.append("  include { phase: ").append(phase).append(" }\n");
      }
      text.append(
          String.format(
              Locale.ROOT,
              "  input_param { shape { dim: %d dim: %d dim: %d dim: %d } shape { dim: %d } }%n",
              batch,
              channels,
              side,
              side,
              batch));
      text.append("}\n");
      fields.set(i, TextFormat.parse(text.toString(), "Input layer").first("layer"));
    }
    return TextFormat.print(m);
  }
}
