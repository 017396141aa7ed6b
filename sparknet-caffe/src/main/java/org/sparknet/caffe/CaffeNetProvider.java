package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.DataLayers;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.StateRules;
import org.sparknet.caffe.internal.TestNetPlan;
import org.sparknet.caffe.internal.TextFormat;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The "caffe" engine: builds {@link CaffeNet}s; registered through {@link java.util.ServiceLoader}.
 * Saved models keep their weights as a {@code .caffemodel} (binary NetParameter, as {@code caffe
 * train} writes it).
 */
public final class CaffeNetProvider implements NetProvider {
  public static final String ENGINE = "caffe";

  /** Layer types whose first bottom is the class scores. */
  private static final List<String> SCORE_CONSUMERS =
      List.of(
          "Softmax",
          "SoftmaxWithLoss",
          "Accuracy",
          "MultinomialLogisticLoss",
          "HingeLoss",
          "InfogainLoss");

  /** Data layer parameter messages that carry a batch_size. */
  private static final List<String> BATCH_PARAMS =
      List.of(
          "data_param",
          "image_data_param",
          "hdf5_data_param",
          "memory_data_param",
          "window_data_param");

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition definition) {
    return CaffeNet.create(definition);
  }

  /** Whether this JVM's dry run of the definition (any seed) ran and passed. */
  @Override
  public boolean passedIsolatedCheck(NetDefinition definition) {
    return DryRun.passed(definition);
  }

  /**
   * A CPU definition the driver's dry run passed is not run again here: the child would build and
   * step the same Caffe code on the same text. A GPU definition still is, since the device's memory
   * decides there.
   */
  @Override
  public void acceptIsolatedCheck(NetDefinition definition) {
    if (definition.device().equals("cpu")) {
      DryRun.accept(definition);
    }
  }

  /** {@link OnnxExport#of}: the TEST phase, opset 13. */
  @Override
  public byte[] exportOnnx(NetDefinition definition, WeightCollection weights) {
    return OnnxExport.of(definition, weights).toBytes();
  }

  @Override
  public int visibleGpus() {
    return CaffeRuntime.gpuCount();
  }

  @Override
  public boolean gpuBuild() {
    return CaffeRuntime.gpuBuild();
  }

  @Override
  public String gpuProblem() {
    return CaffeRuntime.gpuSupport().problem();
  }

  /**
   * "gpu:N" for a solver with {@code solver_mode: GPU}, N its {@code device_id} (0 when absent, as
   * in Caffe), else "cpu".
   */
  @Override
  public String requestedDevice(NetDefinition definition) {
    Message solver = TextFormat.parse(definition.solverText(), "solver definition");
    return solver.value("solver_mode", "CPU").equals("GPU")
        ? "gpu:" + solver.value("device_id", "0")
        : "cpu";
  }

  /** "gpu:0 NVIDIA H100 80GB HBM3 (cuBLAS 13.0 compat, cuDNN 9.14 compat)", or "cpu". */
  @Override
  public String describeDevice(String device) {
    int id = CaffeRuntime.deviceId(device);
    return id < 0 ? device : device + " " + CaffeRuntime.describeGpu(id);
  }

  @Override
  public byte[] encodeWeights(NetDefinition definition, WeightCollection weights) {
    try (CaffeNet net = CaffeNet.create(definition)) {
      net.setWeights(weights);
      return net.toCaffeModel();
    }
  }

  @Override
  public WeightCollection decodeWeights(NetDefinition definition, byte[] bytes, String source) {
    try (CaffeNet net = CaffeNet.create(definition)) {
      // Caffe reads weights files, not byte arrays: go through a temporary file.
      Path tmp = Files.createTempFile("sparknet-weights", ".caffemodel");
      try {
        Files.write(tmp, bytes);
        CaffeModels.load(net, tmp);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage().replace(tmp.toString(), source), e);
      } finally {
        Files.deleteIfExists(tmp);
      }
      return net.getWeights();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot stage the weights of " + source, e);
    }
  }

  @Override
  public String weightsFileName() {
    return "weights.caffemodel";
  }

  /**
   * The first bottom of the first TEST-phase Softmax, classification loss or Accuracy layer (the
   * scores), else the top of the last layer.
   */
  @Override
  public String defaultScoresBlob(NetDefinition definition) {
    TestNetPlan test = NetPlan.of(definition).testNets().get(0);
    String lastTop = null;
    for (Field f : test.net().all("layer")) {
      Message layer = f.message();
      if (!StateRules.included(layer, test.state(), "net definition")) {
        continue;
      }
      List<String> bottoms = layer.values("bottom");
      if (SCORE_CONSUMERS.contains(layer.value("type", "")) && !bottoms.isEmpty()) {
        return bottoms.get(0);
      }
      List<String> tops = layer.values("top");
      if (!tops.isEmpty()) {
        lastTop = tops.get(0);
      }
    }
    if (lastTop == null) {
      throw new IllegalArgumentException("The net definition has no layer with a top");
    }
    return lastTop;
  }

  /**
   * True when the definition has no sample shape and its net (the net text, else the solver's
   * embedded net) has a data layer other than {@code MemoryData}, which declares its own.
   */
  @Override
  public boolean needsSampleShape(NetDefinition definition) {
    if (definition.sampleShape() != null) {
      return false;
    }
    Message net;
    if (definition.netText() != null) {
      net = TextFormat.parse(definition.netText(), "net definition");
    } else {
      net = embeddedNet(TextFormat.parse(definition.solverText(), "solver definition"));
    }
    if (net == null) {
      return false;
    }
    for (Field layer : net.all("layer")) {
      String type = layer.message().value("type", "");
      if (DataLayers.TYPES.contains(type) && !type.equals("MemoryData")) {
        return true;
      }
    }
    return false;
  }

  /** The solver's net_param, else its train_net_param, else null. */
  private static Message embeddedNet(Message solver) {
    Message net = solver.child("net_param");
    return net != null ? net : solver.child("train_net_param");
  }

  /**
   * Sets the first dimension of every {@code Input} layer's shapes (and of the net's legacy {@code
   * input_shape}s) and the {@code batch_size} of every data layer, in the net text or in the
   * solver's {@code net_param}.
   */
  @Override
  public NetDefinition withBatchSize(NetDefinition definition, int batchSize) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batchSize must be > 0 but was " + batchSize);
    }
    String batch = Integer.toString(batchSize);
    if (definition.netText() != null) {
      Message net = TextFormat.parse(definition.netText(), "net definition");
      setBatch(net, batch, "net definition");
      return new NetDefinition(
          definition.engine(),
          definition.solverText(),
          TextFormat.print(net),
          definition.sampleShape(),
          definition.seed(),
          definition.device());
    }
    Message solver = TextFormat.parse(definition.solverText(), "solver definition");
    Message net = embeddedNet(solver);
    if (net == null) {
      throw new IllegalArgumentException(
          "batchSize needs the net text: the solver definition embeds no net_param");
    }
    setBatch(net, batch, "solver definition (net_param)");
    return new NetDefinition(
        definition.engine(),
        TextFormat.print(solver),
        null,
        definition.sampleShape(),
        definition.seed(),
        definition.device());
  }

  /** Sets {@code base_lr} in the solver text. */
  @Override
  public NetDefinition withBaseLearningRate(NetDefinition definition, double rate) {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("The base learning rate must be > 0 but was " + rate);
    }
    Message solver = TextFormat.parse(definition.solverText(), "solver definition");
    solver.set("base_lr", Double.toString(rate));
    return new NetDefinition(
        definition.engine(),
        TextFormat.print(solver),
        definition.netText(),
        definition.sampleShape(),
        definition.seed(),
        definition.device());
  }

  private static void setBatch(Message net, String batch, String source) {
    int changed = 0;
    for (Field s : net.all("input_shape")) {
      changed += setFirstDim(s.message(), batch);
    }
    for (Field f : net.all("layer")) {
      Message layer = f.message();
      if ("Input".equals(layer.value("type", ""))) {
        Message p = layer.child("input_param");
        if (p != null) {
          for (Field s : p.all("shape")) {
            changed += setFirstDim(s.message(), batch);
          }
        }
      }
      for (String name : BATCH_PARAMS) {
        Message p = layer.child(name);
        if (p != null) {
          p.set("batch_size", batch);
          changed++;
        }
      }
    }
    if (changed == 0) {
      throw new IllegalArgumentException(
          "The "
              + source
              + " has no Input or data layer whose batch size could be set to "
              + batch);
    }
  }

  private static int setFirstDim(Message shape, String batch) {
    List<Field> fields = shape.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals("dim")) {
        fields.set(i, Field.scalar("dim", batch));
        return 1;
      }
    }
    return 0;
  }

  /** The layers of a {@code .caffemodel}, for fine-tuning: see {@link CaffeModelLayers}. */
  @Override
  public WeightCollection readLayers(NetDefinition definition, byte[] bytes, String source) {
    return CaffeModelLayers.read(definition, bytes, source);
  }
}
