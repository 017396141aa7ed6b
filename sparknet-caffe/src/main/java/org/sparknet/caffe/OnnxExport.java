package org.sparknet.caffe;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.OnnxConverter;

/**
 * Exports a Caffe net and its weights as an ONNX model (opset 13), to be served by ONNX Runtime or
 * any other ONNX runtime. The net exported is the definition's TEST phase, as Caffe runs it for
 * inference:
 *
 * <ul>
 *   <li>Inputs: the blobs the net's Input or data layers declare, as the layers after them see them
 *       (after a data layer's {@code transform_param}: scale, mean and crop are not part of the
 *       graph), with a symbolic batch dimension {@code N} unless a layer works across the batch.
 *   <li>Outputs: the blobs no kept layer reads (the class scores of a classifier). Loss, accuracy
 *       and silence layers are dropped; a {@code SoftmaxWithLoss} over an output adds the Softmax
 *       of that output as a second output, {@code prob}.
 *   <li>Layers: Convolution, Pooling (MAX, AVE, with Caffe's rounding and divisor), InnerProduct,
 *       ReLU, Sigmoid, TanH, Softmax, Dropout, LRN (ACROSS_CHANNELS), BatchNorm, Scale, Eltwise,
 *       Concat, Flatten, Reshape and Split. Any other layer throws {@link IllegalArgumentException}
 *       naming it and its type.
 * </ul>
 *
 * <p>This is the one entry point for exports; {@link #write(NetDefinition, WeightCollection,
 * OutputStream)} does the work and the other methods read or write files around it.
 */
public final class OnnxExport {
  private OnnxExport() {}

  /** The stand-in solver for a net given alone: exporting never steps a solver. */
  private static final String NO_SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  /**
   * What was exported.
   *
   * @param inputs the graph inputs as {@code name [dims]}, with {@code N} for a symbolic batch
   * @param outputs the graph outputs, likewise
   */
  public record Summary(List<String> inputs, List<String> outputs) {}

  /**
   * Writes the ONNX model of {@code definition}'s TEST-phase net with {@code weights} (by layer
   * name, as {@link CaffeNet#getWeights()} or a .caffemodel's layers give them) to {@code out}. The
   * whole net is checked first: nothing is written for a net that cannot be exported.
   *
   * @throws IllegalArgumentException naming the layer for an unsupported layer or parameter, or
   *     weights missing or of the wrong shape
   */
  public static Summary write(NetDefinition definition, WeightCollection weights, OutputStream out)
      throws IOException {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(weights, "weights");
    Objects.requireNonNull(out, "out");
    OnnxConverter.Result r = convert(definition, weights);
    r.graph().writeTo(out, producerVersion());
    return new Summary(r.inputs(), r.outputs());
  }

  /** The ONNX model as bytes; see {@link #write(NetDefinition, WeightCollection, OutputStream)}. */
  public static byte[] toBytes(NetDefinition definition, WeightCollection weights) {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(weights, "weights");
    return convert(definition, weights).graph().model(producerVersion()).toByteArray();
  }

  /**
   * Exports a Caffe net file with the weights of a .caffemodel to the file {@code onnx}, as {@code
   * sparknet export} does.
   *
   * @param sampleShape the shape of one example for nets with Data layers (C, H, W); null for nets
   *     that declare their input shapes
   * @throws IllegalArgumentException naming the file when a file is missing or unreadable, {@code
   *     onnx} exists, or the net cannot be exported
   */
  public static Summary export(
      Path prototxt, Path caffemodel, List<Integer> sampleShape, Path onnx) {
    Objects.requireNonNull(onnx, "onnx");
    String text = readText(prototxt, "Net file");
    byte[] bytes = readBytes(caffemodel, "Weights file");
    if (Files.exists(onnx)) {
      throw new IllegalArgumentException(
          onnx + " already exists; choose another path or remove it");
    }
    NetDefinition def = definition(text, sampleShape);
    WeightCollection w = CaffeModelLayers.read(def, bytes, caffemodel.toString());
    Path tmp = onnx.resolveSibling(onnx.getFileName() + ".tmp");
    try {
      Summary s;
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
        s = write(def, w, out);
      }
      Files.move(tmp, onnx);
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + onnx, e);
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // the move failed and so may this; the write's error is the one to report
      }
    }
  }

  /** A definition of the net text alone (no solver), for export. */
  public static NetDefinition definition(String netText, List<Integer> sampleShape) {
    return NetDefinition.caffe(NO_SOLVER, netText, sampleShape);
  }

  private static OnnxConverter.Result convert(NetDefinition definition, WeightCollection weights) {
    NetPlan plan = NetPlan.of(definition);
    return OnnxConverter.convert(plan, weights, "net '" + plan.netName() + "'");
  }

  private static String producerVersion() {
    String v = OnnxExport.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  private static String readText(Path p, String what) {
    return new String(readBytes(p, what), java.nio.charset.StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(Path p, String what) {
    Objects.requireNonNull(p, what);
    if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
      throw new IllegalArgumentException(what + " " + p + " does not exist or is unreadable");
    }
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + p, e);
    }
  }
}
