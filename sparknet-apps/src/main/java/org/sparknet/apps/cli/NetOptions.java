package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.model.ModelStore;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.IdxInput;
import picocli.CommandLine.Option;

/** The options that name a Caffe net, shared by train, test and predict. */
final class NetOptions {
  @Option(
      names = "--solver",
      paramLabel = "FILE",
      description =
          "Caffe solver prototxt, unchanged; a relative net: path is resolved against the solver's"
              + " directory (on the same file system), then the current directory. Any Hadoop"
              + " URI (hdfs://, s3a://, file:) or path.")
  String solver;

  @Option(
      names = "--net",
      paramLabel = "FILE",
      description = "Caffe net prototxt (overrides the solver's net:); a Hadoop URI or path.")
  String net;

  @Option(
      names = "--sample-shape",
      paramLabel = "C,H,W",
      split = ",",
      hideParamSyntax = true,
      description =
          "Shape of one example for nets with Data layers (default: 1,ROWS,COLS of the IDX"
              + " images).")
  List<Integer> sampleShape;

  @Option(
      names = "--seed",
      description = "Seed for weights and data order (default: the solver's random_seed, else 42).")
  Long seed;

  @Option(
      names = "--scale",
      description =
          "Multiply pixel bytes by this before feeding (default 1: raw 0-255, as Caffe's Data"
              + " layers read them; their transform_param scale still applies). Use 0.00390625 for"
              + " nets with Input layers that expect [0, 1); with --format idx such a net needs"
              + " --scale given.")
  Float scale;

  private static final Pattern INPUT_LAYER = Pattern.compile("type\\s*:\\s*\"Input\"");

  /** The pixel scale: --scale, else 1 (raw bytes). */
  float scale() {
    return scale != null ? scale : 1f;
  }

  /**
   * Refuses raw 0-255 IDX pixels for a net that takes its data through an {@code Input} layer
   * without --scale: such a layer applies no transform_param scale, and nets written that way (the
   * bundled LeNet) expect [0, 1) and diverge on raw bytes in the first round.
   */
  void checkRawPixels(NetDefinition def, String data) {
    String net = def.netText() != null ? def.netText() : def.solverText();
    if (scale == null && INPUT_LAYER.matcher(net).find()) {
      throw new IllegalArgumentException(
          "The net ("
              + (this.net != null ? this.net : solver)
              + ") reads "
              + data
              + " through an Input layer, which applies no transform_param scale, and IDX pixels"
              + " are raw bytes 0-255: this net expects pixels scaled to [0, 1); pass --scale"
              + " 0.00390625 (or --scale 1 to feed the raw bytes)");
    }
  }

  /** The definition; {@code imageShape} (from the data) when no --sample-shape was given. */
  NetDefinition definition(List<Integer> imageShape) {
    return definition(files(), imageShape);
  }

  private CaffeFiles files;

  /** The solver and net files, read (once: upgrades are reported once) and the net located. */
  CaffeFiles files() {
    if (files == null) {
      files = CaffeFiles.read(existing(solver, "--solver"), existing(net, "--net"));
    }
    return files;
  }

  /** The definition of {@code files}; {@code imageShape} when no --sample-shape was given. */
  NetDefinition definition(CaffeFiles files, List<Integer> imageShape) {
    List<Integer> shape = sampleShape != null ? sampleShape : imageShape;
    SampleShapes.check(shape, "1,28,28");
    if (!(scale() > 0) || Float.isInfinite(scale())) {
      throw new IllegalArgumentException("--scale must be a positive number but was " + scale);
    }
    return files.definition(new ArrayList<>(shape), seed != null ? seed : files.seed(42));
  }

  /** The weights of a .caffemodel (on any Hadoop file system), checked against the net. */
  static WeightCollection loadWeights(NetDefinition def, StoragePath caffemodel) {
    return new ModelStore(caffemodel.settings().conf())
        .readWeights(TaskDevices.forDriver(def), caffemodel.toString());
  }

  /**
   * Writes {@code weights} as a Caffe .caffemodel (fails if the file exists), under a temporary
   * name first, so that a failed write leaves no file that reads as complete.
   */
  static void saveWeights(NetDefinition def, WeightCollection weights, StoragePath caffemodel) {
    new ModelStore(caffemodel.settings().conf())
        .writeWeights(TaskDevices.forDriver(def), weights, caffemodel.toString(), false);
  }

  /**
   * The file {@code uri} names (null for null), which must exist: otherwise bad input naming {@code
   * option} and the URI.
   */
  static StoragePath existing(String uri, String option) {
    return uri == null ? null : IdxInput.file(uri, option);
  }
}
