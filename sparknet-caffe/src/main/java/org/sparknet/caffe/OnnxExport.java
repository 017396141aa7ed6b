package org.sparknet.caffe;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.WeightCollection;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.OnnxConverter;
import org.sparknet.caffe.internal.ProtoMessage;

/**
 * A Caffe net and its weights as an ONNX model (opset 13), to be served by ONNX Runtime or any
 * other ONNX runtime. The net exported is the definition's TEST phase, as Caffe runs it for
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
 * <p>{@link #of} is the one entry point: it converts and checks the whole net, so that nothing is
 * written for a net that cannot be exported; {@link #export} reads and writes files around it.
 */
public final class OnnxExport {
  /** The stand-in solver for a net given alone: exporting never steps a solver. */
  private static final String NO_SOLVER = "base_lr: 0.01\nlr_policy: \"fixed\"\n";

  private final ProtoMessage model;
  private final List<String> inputs;
  private final List<String> outputs;

  private OnnxExport(ProtoMessage model, List<String> inputs, List<String> outputs) {
    this.model = model;
    this.inputs = List.copyOf(inputs);
    this.outputs = List.copyOf(outputs);
  }

  /**
   * Converts {@code definition}'s TEST-phase net with {@code weights} (by layer name, as {@link
   * CaffeNet#getWeights()} or a .caffemodel's layers give them). The model refers to the weights'
   * arrays until it is written: do not change them in between.
   *
   * @throws IllegalArgumentException naming the layer for an unsupported layer or parameter, or
   *     weights missing or of the wrong shape
   */
  public static OnnxExport of(NetDefinition definition, WeightCollection weights) {
    Objects.requireNonNull(definition, "definition");
    Objects.requireNonNull(weights, "weights");
    NetPlan plan = NetPlan.of(definition);
    OnnxConverter.Result r = OnnxConverter.convert(plan, weights, "net '" + plan.netName() + "'");
    String v = OnnxExport.class.getPackage().getImplementationVersion();
    return new OnnxExport(r.graph().model(v == null ? "dev" : v), r.inputs(), r.outputs());
  }

  /** The graph inputs as {@code name [dims]}, with {@code N} for a symbolic batch. */
  public List<String> inputs() {
    return inputs;
  }

  /** The graph outputs as {@code name [dims]}. */
  public List<String> outputs() {
    return outputs;
  }

  /** Writes the ONNX model (a serialized ModelProto) to {@code out}. */
  public void writeTo(OutputStream out) throws IOException {
    model.writeTo(out);
  }

  /** The ONNX model as bytes. */
  public byte[] toBytes() {
    return model.toByteArray();
  }

  /**
   * Exports a Caffe net file with the weights of a .caffemodel to the new file {@code onnx}, as
   * {@code sparknet export} does.
   *
   * @param sampleShape the shape of one example for nets with Data layers (C, H, W); null for nets
   *     that declare their input shapes
   * @throws IllegalArgumentException naming the file when a file is missing or unreadable, {@code
   *     onnx} exists, or the net cannot be exported (then no file is written)
   */
  public static OnnxExport export(
      Path prototxt, Path caffemodel, List<Integer> sampleShape, Path onnx) {
    Objects.requireNonNull(onnx, "onnx");
    String text = new String(readBytes(prototxt, "Net file"), StandardCharsets.UTF_8);
    byte[] bytes = readBytes(caffemodel, "Weights file");
    if (Files.exists(onnx)) {
      throw new IllegalArgumentException(
          onnx + " already exists; choose another path or remove it");
    }
    NetDefinition def = definition(text, sampleShape);
    OnnxExport model = of(def, CaffeModelLayers.read(def, bytes, caffemodel.toString()));
    Path tmp = onnx.resolveSibling(onnx.getFileName() + ".tmp");
    try {
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16)) {
        model.writeTo(out);
      }
      Files.move(tmp, onnx);
      return model;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + onnx, e);
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // the write's own error, if any, is the one to report
      }
    }
  }

  /** A definition of a net's text alone (no solver), for {@link #of}. */
  public static NetDefinition definition(String netText, List<Integer> sampleShape) {
    return NetDefinition.caffe(NO_SOLVER, netText, sampleShape);
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
