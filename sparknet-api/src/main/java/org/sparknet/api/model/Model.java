package org.sparknet.api.model;

import java.io.Serializable;
import java.util.Objects;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.storage.StorageSettings;

/**
 * A net: its definition and its weights, together. What training gives ({@code
 * SparkNetTrainer.model()}, {@code SparkNetClassificationModel.model()}), what {@link #save} writes
 * as a model directory that Caffe's own tools read ({@code definition/solver.prototxt}, {@code
 * definition/net.prototxt}, {@code weights/weights.caffemodel}; see {@link ModelStore}) and {@link
 * #load} reads back, what {@link #newPredictor} runs on this JVM, what {@code
 * SparkNetClassificationModel.of(model)} runs on a cluster, and what {@link #exportOnnx} writes for
 * ONNX runtimes.
 *
 * <p>An immutable value: it holds its own copy of the weights and {@link #weights()} hands out
 * copies. It holds no native memory; the nets it builds belong to their {@link Predictor}.
 */
public final class Model implements Serializable {
  private static final long serialVersionUID = 1L;

  private final NetDefinition definition;
  private final WeightCollection weights;

  private Model(NetDefinition definition, WeightCollection weights) {
    this.definition = Objects.requireNonNull(definition, "definition");
    this.weights = Objects.requireNonNull(weights, "weights").copy();
  }

  /** A model of {@code definition} with {@code weights} (copied), checked when first used. */
  public static Model of(NetDefinition definition, WeightCollection weights) {
    return new Model(definition, weights);
  }

  /**
   * A model of {@code definition} with the weights of an engine weights file (a {@code .caffemodel}
   * for Caffe; any Hadoop URI), which must cover every learnable layer of the net.
   *
   * @throws IllegalArgumentException naming the file when it is missing or does not fit the net
   */
  public static Model of(NetDefinition definition, String weightsFile) {
    WeightCollection w =
        store().readWeights(TaskDevices.forDriver(definition), Objects.requireNonNull(weightsFile));
    return new Model(definition, w);
  }

  /**
   * Reads the model directory {@code uri} (any Hadoop URI) written by {@link #save}, or saved by a
   * SparkNet Spark ML model or {@code SparkNetTrainer.save}.
   *
   * @throws IllegalArgumentException naming the directory or file that is missing or does not fit
   */
  public static Model load(String uri) {
    ModelStore store = store();
    NetDefinition def = store.readDefinition(uri);
    return new Model(def, store.readModelWeights(uri, TaskDevices.forDriver(def)));
  }

  /**
   * Writes this model as the new model directory {@code uri}.
   *
   * @throws IllegalArgumentException when {@code uri} exists already (see {@link #save(String,
   *     boolean)}) or the weights do not fit the definition
   */
  public void save(String uri) {
    save(uri, false);
  }

  /**
   * Writes this model as model directory {@code uri}, replacing its files when {@code overwrite}.
   */
  public void save(String uri, boolean overwrite) {
    ModelStore store = store();
    if (!overwrite && store.exists(uri)) {
      throw new IllegalArgumentException(
          uri + " already exists; choose another path or save(uri, true) to overwrite");
    }
    store.writeModel(uri, definition, weights);
  }

  /**
   * A predictor that runs this model on this JVM in batches: it builds its own net now (on the
   * definition's device; "gpu" and "auto" mean the CPU here) and frees it when closed.
   *
   * @throws IllegalArgumentException when the definition or the weights do not fit the engine
   */
  public Predictor newPredictor() {
    return new Predictor(TaskDevices.forDriver(definition), weights);
  }

  /**
   * Writes the net's TEST phase with these weights as the new ONNX file {@code uri} (opset 13; for
   * Caffe see {@code OnnxExport}: loss and accuracy layers dropped, a {@code prob} output beside
   * the scores of a {@code SoftmaxWithLoss}).
   *
   * @throws UnsupportedOperationException when the engine cannot export ONNX
   * @throws IllegalArgumentException naming the layer ONNX cannot express, or when {@code uri}
   *     exists
   */
  public void exportOnnx(String uri) {
    byte[] onnx = NetProvider.forEngine(definition.engine()).exportOnnx(definition, weights);
    store().writeFile(uri, onnx, false);
  }

  public NetDefinition definition() {
    return definition;
  }

  /** A copy of the weights. */
  public WeightCollection weights() {
    return weights.copy();
  }

  private static ModelStore store() {
    return new ModelStore(StorageSettings.current().conf());
  }

  @Override
  public String toString() {
    return "Model{engine " + definition.engine() + ", " + weights + "}";
  }
}
