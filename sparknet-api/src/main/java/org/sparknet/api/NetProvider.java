package org.sparknet.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Builds nets of one engine. Engines register through {@link ServiceLoader} (a {@code
 * META-INF/services/org.sparknet.api.NetProvider} entry), so this module never depends on them.
 */
public interface NetProvider {

  /** The engine name that {@link NetDefinition#engine()} refers to, for example "caffe". */
  String engine();

  /**
   * Validates the definition and builds the net. Bad definitions throw {@link
   * IllegalArgumentException} naming the file, layer or field at fault; an engine never lets a bad
   * definition abort the JVM.
   */
  Net create(NetDefinition definition);

  /**
   * The weights as the bytes of this engine's own weights file, for saved models (Spark ML's {@code
   * MLWriter}). The default is SparkNet's engine-neutral format ({@link #weightsFileName()} {@code
   * weights.bin}); the Caffe engine writes a {@code .caffemodel} that Caffe's own tools read.
   *
   * @throws IllegalArgumentException when the weights do not fit the definition
   */
  default byte[] encodeWeights(NetDefinition definition, WeightCollection weights) {
    return WeightsFile.encode(weights);
  }

  /**
   * Reads bytes written by {@link #encodeWeights} (for Caffe, any {@code .caffemodel} of the net).
   *
   * @param source names the bytes in error messages, for example the file they came from
   * @throws IllegalArgumentException when the bytes are not such a file or do not fit the net
   */
  default WeightCollection decodeWeights(NetDefinition definition, byte[] bytes, String source) {
    return WeightsFile.decode(bytes, source);
  }

  /**
   * The layers a weights file holds, each with its arrays, whether or not the net has them: what
   * fine-tuning copies by layer name ({@link WeightCollection#copyByLayerName}). Unlike {@link
   * #decodeWeights} the file need not cover the net. The default reads SparkNet's own format; the
   * Caffe engine reads any {@code .caffemodel}.
   *
   * @param definition the net the layers are meant for: an engine whose format leaves a shape
   *     ambiguous (Caffe's legacy 4-D blob fields) takes the net's shape where the two agree
   * @param source names the bytes in error messages, for example the file they came from
   * @throws IllegalArgumentException when the bytes are not such a file
   */
  default WeightCollection readLayers(NetDefinition definition, byte[] bytes, String source) {
    return WeightsFile.decode(bytes, source);
  }

  /**
   * The net's TEST phase with {@code weights} as the bytes of an ONNX model, for ONNX runtimes
   * ({@code Model.exportOnnx}). The Caffe engine implements it; the default has no exporter.
   *
   * @throws UnsupportedOperationException when the engine cannot export ONNX
   * @throws IllegalArgumentException naming the layer that ONNX cannot express
   */
  default byte[] exportOnnx(NetDefinition definition, WeightCollection weights) {
    throw new UnsupportedOperationException(
        "Engine '" + engine() + "' cannot export ONNX; export a Caffe net instead");
  }

  /**
   * Whether the definition needs {@link NetDefinition#sampleShape()} because it has none and a
   * layer reads examples whose shape the net does not declare (for Caffe a {@code Data}, {@code
   * ImageData}, {@code HDF5Data} or {@code WindowData} layer). Callers that know the examples (the
   * Spark ML stages know a features column's size) fill it in before building the net. The default
   * is false: the engine's nets declare their inputs.
   */
  default boolean needsSampleShape(NetDefinition definition) {
    return false;
  }

  /** The file name under which saved models keep {@link #encodeWeights}' bytes. */
  default String weightsFileName() {
    return "weights.bin";
  }

  /**
   * The blob whose values a classifier reads as class scores when none is named: for Caffe, the
   * bottom of the TEST phase's softmax, accuracy or classification loss layer.
   *
   * @throws UnsupportedOperationException when the engine cannot tell; name the blob instead
   */
  default String defaultScoresBlob(NetDefinition definition) {
    throw new UnsupportedOperationException(
        "Engine '" + engine() + "' cannot choose a scores blob; name one (outputBlob)");
  }

  /**
   * The same definition with every input's batch axis set to {@code batchSize} (training and test
   * phase).
   *
   * @throws UnsupportedOperationException when the engine cannot rewrite its definitions
   * @throws IllegalArgumentException when the definition has no input whose batch can be set
   */
  default NetDefinition withBatchSize(NetDefinition definition, int batchSize) {
    throw new UnsupportedOperationException(
        "Engine '" + engine() + "' cannot change the batch size of a definition");
  }

  /**
   * The same definition with the solver's base learning rate set to {@code rate} (for parameter
   * searches over the learning rate).
   *
   * @throws UnsupportedOperationException when the engine cannot rewrite its definitions
   */
  default NetDefinition withBaseLearningRate(NetDefinition definition, double rate) {
    throw new UnsupportedOperationException(
        "Engine '" + engine() + "' cannot change the learning rate of a definition");
  }

  /**
   * The GPUs this engine can use in this JVM (0 when it runs on CPUs only, or when its native
   * library has no GPU support). Used to place nets round-robin when Spark assigns no GPUs.
   */
  default int visibleGpus() {
    return 0;
  }

  /**
   * Whether this engine's code here was built for GPUs at all: a property of the build (the jar),
   * the same on the driver and on every executor that runs it, unlike {@link #visibleGpus()}.
   */
  default boolean gpuBuild() {
    return false;
  }

  /**
   * Why this engine can use no GPU in this JVM, as one line naming what is missing (a CPU-only
   * build, a CUDA library, the driver, a device); null when {@link #visibleGpus()} is above 0.
   */
  default String gpuProblem() {
    return visibleGpus() > 0 ? null : "engine '" + engine() + "' runs on CPUs only";
  }

  /**
   * The device a definition's own text asks for, used when the caller names none: "cpu" (the
   * default), or "gpu:N" for device N of the machine, as Caffe's {@code solver_mode: GPU} and
   * {@code device_id} ask {@code caffe train} for.
   *
   * @throws IllegalArgumentException when the text cannot be read
   */
  default String requestedDevice(NetDefinition definition) {
    return "cpu";
  }

  /**
   * A concrete device ("cpu", "gpu:N") as progress lines and metrics show where a worker ran: the
   * device, and for a GPU what it is and what runs it ("gpu:0 NVIDIA H100 80GB HBM3 (cuBLAS 13.0
   * compat, cuDNN 9.14 compat)"). Called on the executor that runs the net.
   */
  default String describeDevice(String device) {
    return device;
  }

  /**
   * Whether this JVM has checked {@code definition} in isolation and found it safe to build here
   * (Caffe: its dry run in a child JVM passed). The trainer asks on the driver after building its
   * own net, and passes the answer to the executors ({@link #acceptIsolatedCheck}). The default:
   * false, the engine checks nothing in isolation.
   */
  default boolean passedIsolatedCheck(NetDefinition definition) {
    return false;
  }

  /**
   * Takes the driver's isolated check of {@code definition} as this JVM's, so that building it here
   * does not repeat the check: the application's executors run the driver's build of the engine,
   * and a check in a child process costs an executor a second JVM, with the net's native memory
   * again, that a container's memory limit must otherwise make room for. An engine accepts it only
   * where the result cannot differ between machines (Caffe: a CPU net, not a GPU's memory). The
   * default does nothing.
   */
  default void acceptIsolatedCheck(NetDefinition definition) {}

  /** Builds a net with the provider registered for {@code definition.engine()}. */
  static Net build(NetDefinition definition) {
    return forEngine(definition.engine()).create(definition);
  }

  /** The provider for {@code engine}; the error lists the engines that are on the class path. */
  static NetProvider forEngine(String engine) {
    NetProvider p = Providers.ALL.get(engine);
    if (p == null) {
      throw new IllegalArgumentException(
          "No net engine '"
              + engine
              + "' on the class path (found "
              + Providers.ALL.keySet()
              + "); add the module that provides it, for example sparknet-caffe");
    }
    return p;
  }

  /** The engines on the class path, in the order their providers were found. */
  static java.util.Set<String> engines() {
    return Providers.ALL.keySet();
  }

  /**
   * The providers on this class loader, looked up once: a ServiceLoader scan reads every jar's
   * service files, and nets are built once per task and stage.
   */
  final class Providers {
    private static final Map<String, NetProvider> ALL = load();

    private Providers() {}

    private static Map<String, NetProvider> load() {
      Map<String, NetProvider> found = new LinkedHashMap<>();
      for (NetProvider p :
          ServiceLoader.load(NetProvider.class, NetProvider.class.getClassLoader())) {
        found.putIfAbsent(p.engine(), p);
      }
      return Collections.unmodifiableMap(found);
    }
  }
}
