package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatBlobVectorVector;
import org.bytedeco.caffe.FloatLayer;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.InputBlob;
import org.sparknet.caffe.internal.InputTransforms;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.Solvers;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.ndarray.Storage;

/**
 * A Caffe net and its solver, built from a {@link NetDefinition}: the {@link Net} SPI over the
 * JavaCPP Caffe presets.
 *
 * <p>The definition is checked in Java first (syntax with line and column, field names against
 * Caffe's descriptors, layer types, bottoms, blob counts, solver settings, device), then, unless
 * {@code -Dsparknet.caffe.dryRun=false}, built once in a short-lived child JVM that runs one
 * forward/backward pass on zeros, so that a Caffe CHECK failure becomes an {@link
 * IllegalArgumentException} here instead of aborting this JVM. The verdict is cached per
 * definition.
 *
 * <p>Data layers ({@code Data}, {@code ImageData}, {@code HDF5Data}, {@code MemoryData}, {@code
 * WindowData}) are replaced by {@code Input} layers with the same tops, shaped [batch] + {@link
 * NetDefinition#sampleShape()} and [batch]; their {@code transform_param} {@code scale} and {@code
 * mean_value} are applied in place after the feeder writes a batch. Feeders receive views of the
 * input blobs' CPU memory, valid only during the call.
 *
 * <p>Native memory: the solver (with the train net) and the TEST-phase net, which shares the
 * trained layers. {@link #close()} frees both. Caffe's mode and device are per thread: every public
 * method sets them on the calling thread. One thread at a time.
 */
public final class CaffeNet implements Net {
  private static final String DRY_RUN_PROPERTY = "sparknet.caffe.dryRun";

  private final NetDefinition definition;
  private final NetPlan plan;
  private final int deviceId;
  private final FloatSGDSolver solver;
  private final FloatNet testNet;
  private final List<ParamInfo> params; // owned (learnable) params, net order
  private final List<LossTerm> lossTerms;
  private final List<String> testOutputs;
  private final InputTransforms transforms; // crop, mirror, mean file; owns staging memory
  private static final List<Object> QUARANTINE = Collections.synchronizedList(new ArrayList<>());
  private boolean closed;
  private boolean diverged;
  private List<Integer> poolingLayers; // indices of the train net's Pooling layers, found lazily

  private record ParamInfo(String layer, int paramIndex, Shape shape) {}

  private record LossTerm(String blob, float weight) {}

  private CaffeNet(NetDefinition definition, NetPlan plan) {
    this.definition = definition;
    this.plan = plan;
    this.deviceId = CaffeRuntime.deviceId(definition.device());
    CaffeRuntime.useDevice(deviceId);
    FloatSGDSolver s = null;
    FloatNet t = null;
    try (PointerScope scope = new PointerScope()) {
      s = Solvers.create(plan);
      NetParameter tp = new NetParameter();
      CaffeRuntime.readText(plan.testNetText(), tp, "net definition (TEST phase)");
      t = new FloatNet(tp);
      t.retainReference();
      scope.detach(t);
      FloatNet train = s.net();
      t.ShareTrainedLayersWith(train);
      this.params = describeParams(train);
      this.lossTerms = describeLosses(train);
      this.testOutputs = outputNames(t);
      checkInputs(train, Phase.TRAIN);
      checkInputs(t, Phase.TEST);
    } catch (RuntimeException | Error e) {
      if (t != null) {
        t.close();
      }
      if (s != null) {
        s.close();
      }
      throw e;
    }
    this.solver = s;
    this.testNet = t;
    InputTransforms tr = null;
    try {
      tr = new InputTransforms(plan, definition.seed());
    } finally {
      if (tr == null) {
        t.close();
        s.close();
      }
    }
    this.transforms = tr;
  }

  /**
   * Checks and builds a net; the dry run follows {@code -Dsparknet.caffe.dryRun} (default on).
   *
   * @throws IllegalArgumentException naming the file, layer and field of a bad definition
   */
  public static CaffeNet create(NetDefinition definition) {
    return create(definition, Boolean.parseBoolean(System.getProperty(DRY_RUN_PROPERTY, "true")));
  }

  /** Checks and builds a net, with or without the child-JVM dry run. */
  public static CaffeNet create(NetDefinition definition, boolean dryRun) {
    Objects.requireNonNull(definition, "definition");
    NetPlan plan = NetPlan.of(definition);
    if (dryRun) {
      DryRun.check(definition);
    }
    return new CaffeNet(definition, plan);
  }

  private static List<ParamInfo> describeParams(FloatNet net) {
    List<ParamInfo> out = new ArrayList<>();
    FloatLayerSharedVector layers = net.layers();
    FloatBlobSharedVector all = net.params();
    IntPointer owners = net.param_owners();
    int k = 0;
    for (long i = 0; i < layers.size(); i++) {
      FloatLayer layer = layers.get(i);
      String name = net.layer_names().get(i).getString();
      long nb = layer.blobs().size();
      for (long j = 0; j < nb; j++, k++) {
        if (owners.get(k) == -1) {
          out.add(new ParamInfo(name, k, shapeOf(all.get(k))));
        }
      }
    }
    return List.copyOf(out);
  }

  private static List<LossTerm> describeLosses(FloatNet net) {
    List<LossTerm> out = new ArrayList<>();
    FloatLayerSharedVector layers = net.layers();
    for (long i = 0; i < layers.size(); i++) {
      FloatLayer layer = layers.get(i);
      IntPointer tops = net.top_ids((int) i);
      int nt = layer.layer_param().top_size();
      for (int j = 0; j < nt; j++) {
        float w = layer.loss(j);
        if (w != 0) {
          out.add(new LossTerm(net.blob_names().get(tops.get(j)).getString(), w));
        }
      }
    }
    return List.copyOf(out);
  }

  private static List<String> outputNames(FloatNet net) {
    List<String> out = new ArrayList<>();
    IntPointer idx = net.output_blob_indices();
    for (int i = 0; i < net.num_outputs(); i++) {
      out.add(net.blob_names().get(idx.get(i)).getString());
    }
    return List.copyOf(out);
  }

  private static Shape shapeOf(FloatBlob b) {
    int n = b.num_axes();
    int[] dims = new int[n];
    for (int i = 0; i < n; i++) {
      dims[i] = b.shape(i);
    }
    return Shape.of(dims);
  }

  private void checkInputs(FloatNet net, Phase phase) {
    for (InputBlob in : plan.inputs(phase)) {
      Shape actual = shapeOf(net.blob_by_name(in.name()));
      if (!actual.equals(Shape.of(in.shape()))) {
        throw new IllegalStateException(
            "Input blob '"
                + in.name()
                + "' has shape "
                + actual
                + ", planned "
                + Shape.of(in.shape()));
      }
    }
  }

  // ---------------------------------------------------------------- Net

  @Override
  public String name() {
    checkOpen();
    return plan.netName();
  }

  /** The definition this net was built from. */
  public NetDefinition definition() {
    return definition;
  }

  /**
   * {@inheritDoc}
   *
   * <p>These are the shapes a feeder writes: for an input whose transform_param has a crop_size,
   * the uncropped examples (the blob itself is cropped, as Caffe's Data layer does).
   */
  @Override
  public Map<String, Shape> inputShapes(Phase phase) {
    checkOpen();
    Map<String, Shape> out = new LinkedHashMap<>();
    for (InputBlob in : plan.inputs(phase)) {
      out.put(in.name(), Shape.of(in.feedShape()));
    }
    return Collections.unmodifiableMap(out);
  }

  @Override
  public float train(int numSteps, BatchFeeder feeder) {
    checkOpen();
    checkSteps(numSteps, feeder);
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      FloatNet net = solver.net();
      double sum = 0;
      for (int i = 0; i < numSteps; i++) {
        feed(net, Phase.TRAIN, feeder);
        solver.Step(1);
        double loss = loss(net);
        sum += loss;
        // Diverged: stop and report NaN. Stepping on would make it worse, and it may already be
        // too late: Caffe's max pooling leaves its argmax at -1 for a window of NaNs and the
        // backward pass then adds to the float before the blob, over malloc's chunk header (a
        // diverged LeNet crashed the JVM in free() when the net was closed). See close().
        if (!Double.isFinite(loss) || !paramsFinite(net) || !poolingInputsFinite(net)) {
          diverged = true;
          return Float.NaN;
        }
      }
      return numSteps == 0 ? Float.NaN : (float) (sum / numSteps);
    }
  }

  @Override
  public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    checkOpen();
    checkSteps(numSteps, feeder);
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      Map<String, Double> sums = new LinkedHashMap<>();
      for (int i = 0; i < numSteps; i++) {
        feed(testNet, Phase.TEST, feeder);
        testNet.Forward();
        for (String name : testOutputs) {
          FloatBlob b = testNet.blob_by_name(name);
          if (b.count() == 1) {
            sums.merge(name, (double) b.cpu_data().get(0), Double::sum);
          }
        }
      }
      Map<String, Float> out = new LinkedHashMap<>();
      sums.forEach((k, v) -> out.put(k, (float) (v / numSteps)));
      return out;
    }
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    checkOpen();
    Objects.requireNonNull(feeder, "feeder");
    Objects.requireNonNull(blobs, "blobs");
    // Copies go to the heap first: an NDArray allocated inside a PointerScope would be freed
    // when the scope closes.
    Map<String, Tensor> copies = new LinkedHashMap<>();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      for (String name : blobs) {
        if (!testNet.has_blob(name)) {
          List<String> names = new ArrayList<>();
          for (long i = 0; i < testNet.blob_names().size(); i++) {
            names.add(testNet.blob_names().get(i).getString());
          }
          throw new IllegalArgumentException(
              "Net '"
                  + plan.netName()
                  + "' (TEST phase) has no blob '"
                  + name
                  + "'; it has "
                  + names);
        }
      }
      feed(testNet, Phase.TEST, feeder);
      testNet.Forward();
      for (String name : blobs) {
        FloatBlob b = testNet.blob_by_name(name);
        float[] data = new float[b.count()];
        b.cpu_data().get(data);
        copies.put(name, new Tensor(shapeOf(b), data));
      }
    }
    Map<String, NDArray> out = new LinkedHashMap<>();
    copies.forEach((k, t) -> out.put(k, NDArray.create(t.data(), t.shape().dims())));
    return out;
  }

  @Override
  public WeightCollection getWeights() {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      FloatBlobSharedVector all = solver.net().params();
      Map<String, List<Tensor>> layers = new LinkedHashMap<>();
      for (ParamInfo p : params) {
        FloatBlob b = all.get(p.paramIndex());
        float[] data = new float[b.count()];
        b.cpu_data().get(data);
        layers.computeIfAbsent(p.layer(), k -> new ArrayList<>()).add(new Tensor(p.shape(), data));
      }
      return toCollection(layers);
    }
  }

  /** Views of the parameter blobs' CPU memory (mutable: on a GPU the next step copies them up). */
  @Override
  public boolean withWeightViews(Consumer<List<NDArray>> action) {
    checkOpen();
    Objects.requireNonNull(action, "action");
    List<Storage> storages = new ArrayList<>();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      FloatBlobSharedVector all = solver.net().params();
      List<NDArray> views = new ArrayList<>(params.size());
      for (ParamInfo p : params) {
        Storage st =
            Storage.borrow(
                all.get(p.paramIndex()).mutable_cpu_data(),
                p.shape().size(),
                "weights of layer '" + p.layer() + "' of net '" + plan.netName() + "'");
        storages.add(st);
        views.add(NDArray.wrap(st, p.shape()));
      }
      action.accept(Collections.unmodifiableList(views));
      return true;
    } finally {
      for (Storage st : storages) {
        st.close(); // views never outlive the call
      }
    }
  }

  @Override
  public void setWeights(WeightCollection weights) {
    checkOpen();
    Objects.requireNonNull(weights, "weights");
    checkStructure(weights, params, "");
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      FloatBlobSharedVector all = solver.net().params();
      Map<String, Integer> next = new LinkedHashMap<>();
      for (ParamInfo p : params) {
        int j = next.merge(p.layer(), 1, Integer::sum) - 1;
        float[] data = weights.get(p.layer()).get(j).data();
        all.get(p.paramIndex()).mutable_cpu_data().put(data);
      }
    }
  }

  @Override
  public int iteration() {
    checkOpen();
    return solver.iter();
  }

  /**
   * The solver's history (SGD momentum; the squared-gradient and update averages of the adaptive
   * solvers) as a heap copy, keyed like {@link #getWeights()}; solvers that keep more than one
   * history array per parameter (AdaDelta, Adam) add keys {@code layer#1}, {@code layer#2}, ...
   */
  public WeightCollection getSolverHistory() {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      FloatBlobSharedVector history = solver.history();
      Map<String, List<Tensor>> layers = new LinkedHashMap<>();
      List<ParamInfo> slots = historySlots(history.size());
      for (int k = 0; k < slots.size(); k++) {
        FloatBlob b = history.get(k);
        float[] data = new float[b.count()];
        b.cpu_data().get(data);
        ParamInfo p = slots.get(k);
        layers.computeIfAbsent(p.layer(), x -> new ArrayList<>()).add(new Tensor(p.shape(), data));
      }
      return toCollection(layers);
    }
  }

  /** Copies a history taken by {@link #getSolverHistory()} into this net's solver. */
  public void setSolverHistory(WeightCollection history) {
    checkOpen();
    Objects.requireNonNull(history, "history");
    try (PointerScope scope = new PointerScope()) {
      FloatBlobSharedVector h = solver.history();
      List<ParamInfo> slots = historySlots(h.size());
      checkStructure(history, slots, "solver history ");
      Map<String, Integer> next = new LinkedHashMap<>();
      for (int k = 0; k < slots.size(); k++) {
        ParamInfo p = slots.get(k);
        int j = next.merge(p.layer(), 1, Integer::sum) - 1;
        h.get(k).mutable_cpu_data().put(history.get(p.layer()).get(j).data());
      }
    }
  }

  @Override
  public boolean hasSolverState() {
    return true;
  }

  /**
   * The solver's iteration and history ({@link #getSolverHistory()}). Caffe's {@code current_step}
   * (the "multistep" policy's position) is not stored: it follows from the iteration.
   */
  @Override
  public SolverState getSolverState() {
    checkOpen();
    return new SolverState(iteration(), getSolverHistory());
  }

  /**
   * Restores iteration and history through Caffe's own {@code Solver::Restore} of a binary
   * SolverState (written to a temporary file), so that the learning-rate policy continues from the
   * iteration; the history is checked against this solver's first and nothing changes on a
   * mismatch. The weights are not touched.
   */
  @Override
  public void setSolverState(SolverState state) {
    checkOpen();
    Objects.requireNonNull(state, "state");
    if (state.iteration() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "Solver state of iteration "
              + state.iteration()
              + " does not fit Caffe's int iteration counter");
    }
    try (PointerScope scope = new PointerScope()) {
      checkStructure(state.history(), historySlots(solver.history().size()), "solver history ");
    }
    setSolverHistory(state.history());
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      org.bytedeco.caffe.SolverState proto = new org.bytedeco.caffe.SolverState();
      proto.set_iter((int) state.iteration());
      proto.set_current_step(currentStep((int) state.iteration()));
      FloatBlobSharedVector h = solver.history();
      for (long k = 0; k < h.size(); k++) {
        h.get(k).ToProto(proto.add_history(), false);
      }
      restore(proto);
    }
  }

  /**
   * The "multistep" policy's position after {@code iter} iterations, as Caffe's
   * SGDSolver::GetLearningRate advances it: at most one step per iteration, at the first iteration
   * that reaches the next step value.
   */
  private int currentStep(int iter) {
    SolverParameter p = solver.param();
    int n = p.stepvalue_size();
    int step = 0;
    long next = 0; // the first iteration at which the next advance may happen
    while (step < n) {
      long at = Math.max(next, p.stepvalue(step));
      if (at >= iter) {
        break;
      }
      step++;
      next = at + 1;
    }
    return step;
  }

  /** Hands a checked SolverState (no learned_net) to Caffe's Solver::Restore. */
  private void restore(org.bytedeco.caffe.SolverState proto) {
    Path tmp = null;
    try {
      tmp = Files.createTempFile("sparknet-", ".solverstate");
      caffe.WriteProtoToBinaryFile(proto, tmp.toString());
      solver.Restore(tmp.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a temporary solver state file", e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // a leftover temporary file is harmless
        }
      }
    }
  }

  /** This solver's state as Caffe's binary SolverState (no learned_net: weights go separately). */
  byte[] toSolverStateProto() {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      org.bytedeco.caffe.SolverState proto = new org.bytedeco.caffe.SolverState();
      int iter = solver.iter();
      proto.set_iter(iter);
      proto.set_current_step(currentStep(iter));
      FloatBlobSharedVector h = solver.history();
      for (long k = 0; k < h.size(); k++) {
        h.get(k).ToProto(proto.add_history(), false);
      }
      org.bytedeco.javacpp.BytePointer bytes = proto.SerializeAsString();
      byte[] out = new byte[(int) bytes.limit()];
      bytes.get(out);
      return out;
    }
  }

  /**
   * Restores a parsed .solverstate after checking, in Java, its history count, shapes and sizes
   * (Caffe would abort the JVM on a mismatch). Its learned_net reference is not followed.
   */
  void restoreSolverState(org.bytedeco.caffe.SolverState proto, String source) {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      List<ParamInfo> slots = historySlots(solver.history().size());
      List<String> problems = new ArrayList<>();
      if (proto.history_size() != slots.size()) {
        problems.add(
            "it has "
                + proto.history_size()
                + " history blobs, the "
                + plan.solverType()
                + " solver of this net has "
                + slots.size());
      } else {
        for (int k = 0; k < slots.size(); k++) {
          org.bytedeco.caffe.BlobProto bp = proto.history(k);
          Shape want = slots.get(k).shape();
          Shape got = protoShape(bp);
          if (!got.equals(bp.has_shape() ? want : legacy(want))) {
            problems.add(
                "history blob "
                    + k
                    + " ("
                    + slots.get(k).layer()
                    + ") has shape "
                    + got
                    + ", the net has "
                    + want);
          } else if (bp.data_size() != got.size()) {
            problems.add(
                "history blob "
                    + k
                    + " holds "
                    + bp.data_size()
                    + " floats, needs "
                    + got.size()
                    + (bp.double_data_size() > 0 ? " (double data is not supported)" : ""));
          }
        }
      }
      if (proto.iter() < 0) {
        problems.add("its iteration is negative (" + proto.iter() + ")");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            "Solver state file "
                + source
                + " does not match net '"
                + plan.netName()
                + "': "
                + String.join("; ", problems)
                + "; nothing was changed");
      }
      proto.clear_learned_net();
      restore(proto);
    }
  }

  private List<ParamInfo> historySlots(long size) {
    List<ParamInfo> slots = new ArrayList<>();
    int n = params.size();
    for (int k = 0; k < size; k++) {
      ParamInfo p = params.get(k % n);
      int slot = k / n;
      slots.add(new ParamInfo(slot == 0 ? p.layer() : p.layer() + "#" + slot, k, p.shape()));
    }
    return slots;
  }

  private static WeightCollection toCollection(Map<String, List<Tensor>> layers) {
    WeightCollection w = new WeightCollection();
    layers.forEach(w::put);
    return w;
  }

  /** Rejects a collection unlike {@code expected}, before anything is written. */
  private void checkStructure(WeightCollection given, List<ParamInfo> expected, String what) {
    Map<String, List<Shape>> shapes = new LinkedHashMap<>();
    for (ParamInfo p : expected) {
      shapes.computeIfAbsent(p.layer(), k -> new ArrayList<>()).add(p.shape());
    }
    boolean same = given.layerNames().equals(List.copyOf(shapes.keySet()));
    if (same) {
      for (Map.Entry<String, List<Shape>> e : shapes.entrySet()) {
        List<Tensor> ts = given.get(e.getKey());
        if (ts.size() != e.getValue().size()) {
          same = false;
          break;
        }
        for (int i = 0; i < ts.size(); i++) {
          if (!ts.get(i).shape().equals(e.getValue().get(i))) {
            same = false;
            break;
          }
        }
      }
    }
    if (same) {
      return;
    }
    // Only on error: a skeleton of the expected structure, so the message lists every difference.
    Map<Long, float[]> zeros = new LinkedHashMap<>();
    WeightCollection skeleton = new WeightCollection();
    shapes.forEach(
        (layer, list) -> {
          List<Tensor> ts = new ArrayList<>();
          for (Shape s : list) {
            ts.add(new Tensor(s, zeros.computeIfAbsent(s.size(), n -> new float[(int) (long) n])));
          }
          skeleton.put(layer, ts);
        });
    throw new IllegalArgumentException(
        "Cannot set the "
            + what
            + "weights of net '"
            + plan.netName()
            + "': "
            + skeleton.structureDifference(given)
            + "; nothing was changed");
  }

  // ---------------------------------------------------------------- feeding

  private static void checkSteps(int numSteps, BatchFeeder feeder) {
    if (numSteps < 0) {
      throw new IllegalArgumentException("numSteps must be >= 0 but was " + numSteps);
    }
    Objects.requireNonNull(feeder, "feeder");
  }

  private void feed(FloatNet net, Phase phase, BatchFeeder feeder) {
    List<InputBlob> specs = plan.inputs(phase);
    Map<String, NDArray> views = new LinkedHashMap<>();
    List<Storage> storages = new ArrayList<>();
    List<FloatPointer> memory = new ArrayList<>();
    try {
      for (InputBlob in : specs) {
        FloatBlob b = net.blob_by_name(in.name());
        Shape shape = Shape.of(in.shape());
        if (b.count() != shape.size()) {
          throw new IllegalStateException(
              "Input blob '"
                  + in.name()
                  + "' was reshaped to "
                  + shapeOf(b)
                  + "; expected "
                  + shape);
        }
        // a crop, mirror or mean file: the feeder writes whole examples into staging memory
        Shape fed = Shape.of(in.feedShape());
        FloatPointer p = in.staged() ? transforms.staging(phase, in) : b.mutable_cpu_data();
        Storage st =
            Storage.borrow(
                p,
                fed.size(),
                "input blob '" + in.name() + "' of net '" + plan.netName() + "' (" + phase + ")");
        storages.add(st);
        memory.add(p);
        views.put(in.name(), NDArray.wrap(st, fed));
      }
      feeder.fill(Collections.unmodifiableMap(views));
      for (int i = 0; i < specs.size(); i++) {
        InputBlob in = specs.get(i);
        FloatPointer p = memory.get(i);
        int fedCount = (int) Shape.of(in.feedShape()).size();
        checkValues(in, p.position(0).capacity(fedCount).asBuffer(), phase);
        if (in.staged()) {
          FloatBlob b = net.blob_by_name(in.name());
          FloatPointer dst = b.mutable_cpu_data();
          transforms.apply(phase, in, p, dst.capacity(b.count()).asBuffer());
        } else if (in.hasTransform()) {
          transform(in, p, fedCount);
        }
      }
    } finally {
      for (Storage st : storages) {
        st.close(); // views never outlive the call
      }
    }
  }

  private void checkValues(InputBlob in, FloatBuffer data, Phase phase) {
    int n = data.capacity();
    for (int i = 0; i < n; i++) {
      float v = data.get(i);
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException(
            "The feeder wrote "
                + v
                + " at flat index "
                + i
                + " of input blob '"
                + in.name()
                + "' of net '"
                + plan.netName()
                + "' ("
                + phase
                + "); inputs must be finite");
      }
      if (in.numClasses() > 0) {
        int label = (int) v;
        boolean ignored = in.ignoreLabel() != null && label == in.ignoreLabel();
        if (!ignored && (label < 0 || label >= in.numClasses())) {
          throw new IllegalArgumentException(
              "The feeder wrote label "
                  + v
                  + " at index "
                  + i
                  + " of blob '"
                  + in.name()
                  + "' of net '"
                  + plan.netName()
                  + "' ("
                  + phase
                  + "): the layer reading it (a classifier with "
                  + in.numClasses()
                  + " outputs, or an Embed with input_dim "
                  + in.numClasses()
                  + ") needs values in [0, "
                  + in.numClasses()
                  + ")");
        }
      }
    }
  }

  /** Caffe's DataTransformer for scale and mean_value: x' = (x - mean[c]) * scale, in place. */
  private static void transform(InputBlob in, FloatPointer p, int count) {
    float[] mean = in.mean();
    if (mean != null) {
      int[] shape = in.shape();
      int channels = shape.length > 1 ? shape[1] : 1;
      int inner = count / (shape[0] * channels);
      for (int n = 0; n < shape[0]; n++) {
        for (int c = 0; c < channels; c++) {
          float m = mean.length == 1 ? mean[0] : mean[c];
          caffe.caffe_add_scalar_float(
              inner, -m, new FloatPointer(p).position((long) (n * channels + c) * inner));
        }
      }
    }
    if (in.scale() != 1f) {
      caffe.caffe_scal_float(count, in.scale(), p.position(0));
    }
  }

  /**
   * Whether the inputs of every Pooling layer are finite after the last step. A window of NaN or
   * -Infinity leaves max pooling's argmax at -1, and its backward pass (already run) then wrote
   * before its bottom blob: the net must be treated as diverged even when the loss stayed finite.
   */
  private boolean poolingInputsFinite(FloatNet net) {
    if (poolingLayers == null) {
      List<Integer> found = new ArrayList<>();
      FloatLayerSharedVector layers = net.layers();
      for (int i = 0; i < layers.size(); i++) {
        if ("Pooling".equals(layers.get(i).type().getString())) {
          found.add(i);
        }
      }
      poolingLayers = List.copyOf(found);
    }
    FloatBlobVectorVector bottoms = net.bottom_vecs();
    for (int i : poolingLayers) {
      if (!finite(bottoms.get(i).get(0))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether every value of the blob is finite, from the sum of their magnitudes: a NaN or an
   * infinity makes it non-finite (so does a sum beyond Float.MAX_VALUE, values that have diverged
   * anyway). Blob::asum_data runs in BLAS where the data lives (cublas on a GPU, no copy to the
   * host) instead of a Java loop over every value (about 1.4M floats a LeNet step).
   */
  static boolean finite(FloatBlob b) {
    return Float.isFinite(b.asum_data());
  }

  /** Whether every learnable parameter value is finite (read in place, no copy). */
  private boolean paramsFinite(FloatNet net) {
    FloatBlobSharedVector all = net.params();
    for (ParamInfo p : params) {
      if (!finite(all.get(p.paramIndex()))) {
        return false;
      }
    }
    return true;
  }

  private double loss(FloatNet net) {
    double loss = 0;
    for (LossTerm t : lossTerms) {
      FloatBlob b = net.blob_by_name(t.blob());
      int n = b.count();
      FloatBuffer d = b.cpu_data().capacity(n).asBuffer();
      double s = 0;
      for (int i = 0; i < n; i++) {
        s += d.get(i);
      }
      loss += t.weight() * s;
    }
    return loss;
  }

  // ---------------------------------------------------------------- caffemodel I/O

  /** The trained layers as Caffe's NetParameter (binary proto bytes of a .caffemodel). */
  byte[] toCaffeModel() {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      NetParameter np = new NetParameter();
      solver.net().ToProto(np, false);
      org.bytedeco.javacpp.BytePointer bytes = np.SerializeAsString();
      byte[] out = new byte[(int) bytes.limit()];
      bytes.get(out);
      return out;
    }
  }

  /**
   * Copies the layers of a parsed .caffemodel into this net after checking, in Java, that every
   * learnable layer of this net is there with the same number and shapes of blobs (Caffe's own copy
   * would abort the JVM on a mismatch).
   */
  void copyTrainedLayersFrom(NetParameter model, String source) {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      FloatNet net = solver.net();
      Map<String, List<Shape>> expected = new LinkedHashMap<>();
      FloatLayerSharedVector layers = net.layers();
      for (long i = 0; i < layers.size(); i++) {
        FloatBlobSharedVector blobs = layers.get(i).blobs();
        List<Shape> shapes = new ArrayList<>();
        for (long j = 0; j < blobs.size(); j++) {
          shapes.add(shapeOf(blobs.get(j)));
        }
        expected.put(net.layer_names().get(i).getString(), shapes);
      }
      List<String> problems = new ArrayList<>();
      Map<String, Boolean> found = new LinkedHashMap<>();
      if (model.layers_size() > 0) {
        throw new IllegalArgumentException(
            source + " uses Caffe's V1 layer format; upgrade it with upgrade_net_proto_binary");
      }
      for (int i = 0; i < model.layer_size(); i++) {
        org.bytedeco.caffe.LayerParameter lp = model.layer(i);
        String name = lp.name().getString();
        List<Shape> want = expected.get(name);
        if (want == null) {
          continue; // Caffe ignores layers the net does not have
        }
        found.put(name, true);
        if (lp.blobs_size() != want.size()) {
          problems.add(
              "layer '" + name + "' has " + lp.blobs_size() + " blobs, the net has " + want.size());
          continue;
        }
        for (int j = 0; j < want.size(); j++) {
          org.bytedeco.caffe.BlobProto bp = lp.blobs(j);
          Shape got = protoShape(bp);
          Shape need = bp.has_shape() ? want.get(j) : legacy(want.get(j));
          if (!got.equals(need)) {
            problems.add(
                "layer '"
                    + name
                    + "' blob "
                    + j
                    + " has shape "
                    + got
                    + ", the net has "
                    + want.get(j));
          } else if (bp.data_size() != got.size()) {
            problems.add(
                "layer '"
                    + name
                    + "' blob "
                    + j
                    + " holds "
                    + bp.data_size()
                    + " floats, needs "
                    + got.size()
                    + (bp.double_data_size() > 0 ? " (double data is not supported)" : ""));
          }
        }
      }
      List<String> missing = new ArrayList<>();
      for (ParamInfo p : params) {
        if (!found.containsKey(p.layer()) && !missing.contains(p.layer())) {
          missing.add(p.layer());
        }
      }
      if (!missing.isEmpty()) {
        problems.add("learnable layers missing from the file: " + missing);
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException(
            "Weights file "
                + source
                + " does not match net '"
                + plan.netName()
                + "': "
                + String.join("; ", problems)
                + "; nothing was changed");
      }
      net.CopyTrainedLayersFrom(model);
    }
  }

  private static Shape legacy(Shape s) {
    if (s.rank() > 4) {
      return s;
    }
    int[] dims = {1, 1, 1, 1};
    for (int i = 0; i < s.rank(); i++) {
      dims[4 - s.rank() + i] = s.dim(i);
    }
    return Shape.of(dims);
  }

  private static Shape protoShape(org.bytedeco.caffe.BlobProto bp) {
    if (bp.has_shape()) {
      int n = bp.shape().dim_size();
      int[] dims = new int[n];
      for (int i = 0; i < n; i++) {
        dims[i] = (int) bp.shape().dim(i);
      }
      return Shape.of(dims);
    }
    // legacy 4-D blobs; Caffe accepts them for blobs of up to 4 axes
    return Shape.of(bp.num(), bp.channels(), bp.height(), bp.width());
  }

  // ---------------------------------------------------------------- lifecycle

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(
          "CaffeNet '" + plan.netName() + "' has been closed; build a new one");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (diverged) {
      // Its heap may be corrupted (see train): freeing it aborts the JVM, so its native memory (a
      // few times the parameter bytes plus one batch of activations) is leaked on purpose, held
      // by a static list so that no garbage-collector-driven deallocation frees it either.
      QUARANTINE.add(testNet);
      QUARANTINE.add(solver);
      QUARANTINE.add(transforms);
      return;
    }
    transforms.close();
    testNet.close();
    solver.close();
  }

  /**
   * Whether a training step produced a non-finite loss or weights. Such a net is not freed by
   * {@link #close()} (its native heap may be corrupted by Caffe's pooling layers); its memory is
   * leaked instead of risking an abort of the JVM.
   */
  public boolean diverged() {
    return diverged;
  }

  @Override
  public String toString() {
    if (closed) {
      return "CaffeNet{" + plan.netName() + ", closed}";
    }
    // What a notebook user wants to see: inputs, learnable layers, size and training state.
    Map<String, Long> perLayer = new LinkedHashMap<>();
    long total = 0;
    for (ParamInfo p : params) {
      perLayer.merge(p.layer(), p.shape().size(), Long::sum);
      total += p.shape().size();
    }
    StringBuilder sb = new StringBuilder("CaffeNet '").append(plan.netName()).append("'");
    sb.append(
        String.format(
            Locale.ROOT,
            " (%s solver, %s, iteration %d): %,d parameters\n",
            plan.solverType(),
            definition.device(),
            solver.iter(),
            total));
    sb.append("  inputs (train) ").append(inputShapes(Phase.TRAIN)).append('\n');
    sb.append("  inputs (test)  ").append(inputShapes(Phase.TEST)).append('\n');
    for (Map.Entry<String, Long> e : perLayer.entrySet()) {
      sb.append(String.format(Locale.ROOT, "  %-12s %,12d\n", e.getKey(), e.getValue()));
    }
    return sb.toString();
  }
}
