package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.CheckedStep;
import org.sparknet.caffe.internal.HostReads;
import org.sparknet.caffe.internal.InputFeeder;
import org.sparknet.caffe.internal.InputTransforms;
import org.sparknet.caffe.internal.LearnableParams;
import org.sparknet.caffe.internal.LearningRates;
import org.sparknet.caffe.internal.NetMemory;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.SolverStates;
import org.sparknet.caffe.internal.TrainedLayers;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

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
 * <p>This class holds the lifecycle and the thread's Caffe device; the work is done by {@code
 * internal} classes over the native objects: {@code InputFeeder} (batches into the input blobs),
 * {@code LearnableParams} (weights and their views), {@code SolverStates} (iteration and history),
 * {@code TrainedLayers} (.caffemodel contents), {@code CheckedStep} (a solver step whose forward
 * outputs are checked before the backward pass), {@code StepProbe} (those checks and the loss in
 * one read back) and {@code Divergence} (the search for what went non-finite); and, in this
 * package, {@code TestPhaseNet} (a test net's passes, on a net this class owns), {@code
 * CaffeNetNatives} (the native objects, built and freed together) and {@code CaffeNetSummary} (the
 * text of {@link #toString()}).
 *
 * <p>Native memory: the solver (with the train net) and one TEST net per test net the solver
 * defines (its {@code test_iter} and {@code test_state}; one when it defines none), each sharing
 * the trained layers, held by {@code CaffeNetNatives}. {@link #close()} frees them all. Caffe's
 * mode and device are per thread: every public method sets them on the calling thread. One thread
 * at a time.
 */
public final class CaffeNet implements Net {
  private static final String DRY_RUN_PROPERTY = "sparknet.caffe.dryRun";

  private final NetDefinition definition;
  private final NetPlan plan;
  private final int deviceId;
  private final HostReads reads = new HostReads();
  private final CaffeNetNatives natives; // owned: solver, test nets, probe, transforms
  private final FloatSGDSolver solver; // the natives' solver, with the train net
  private final LearnableParams params; // owned (learnable) params, net order
  private final InputTransforms transforms; // crop, mirror, mean file
  private final CheckedStep step;
  private final InputFeeder inputs;
  private final List<TestPhaseNet> testPhases;
  private final SolverStates solverStates;
  private boolean closed;
  private String lastDivergence;

  private CaffeNet(NetDefinition definition, NetPlan plan) {
    this.definition = definition;
    this.plan = plan;
    this.deviceId = CaffeRuntime.deviceId(definition.device());
    CaffeRuntime.useDevice(deviceId);
    this.natives = CaffeNetNatives.build(plan, deviceId, definition.seed(), reads);
    this.solver = natives.solver();
    this.params = natives.params();
    this.transforms = natives.transforms();
    this.step = natives.step();
    this.inputs = new InputFeeder(plan, transforms);
    List<TestPhaseNet> phases = new ArrayList<>();
    for (int k = 0; k < natives.testNets().size(); k++) {
      phases.add(new TestPhaseNet(natives.testNets().get(k), k, plan.netName(), inputs));
    }
    this.testPhases = List.copyOf(phases);
    this.solverStates = new SolverStates(solver, params, plan.netName(), plan.solverType());
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

  /**
   * Runs {@code body} on an open net with the calling thread's Caffe device set, freeing every
   * temporary pointer it makes.
   */
  private <T> T onDevice(Supplier<T> body) {
    checkOpen();
    try (PointerScope scope = new PointerScope()) {
      CaffeRuntime.useDevice(deviceId);
      return body.get();
    }
  }

  private void onDevice(Runnable body) {
    onDevice(
        () -> {
          body.run();
          return null;
        });
  }

  // ---------------------------------------------------------------- Net

  @Override
  public long nativeBytes() {
    return onDevice(() -> NetMemory.of(plan, solver.net(), natives.testNets(), deviceId).bytes());
  }

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
    return TestPhaseNet.feedShapes(plan.inputs(phase));
  }

  /**
   * {@inheritDoc}
   *
   * <p>Each step checks the forward outputs before the backward pass ({@code CheckedStep}) and the
   * weights after the update: a non-finite one stops the steps there, with the layer named in
   * {@link #lastDivergence()}. A non-finite output never reaches the backward pass, so a diverged
   * net's memory stays intact and it closes like any other. On the CPU the checks and the loss cost
   * one read back of blob values a forward pass ({@code StepProbe}), and the call one more for the
   * weights of its last update; blobs are searched one by one only when something is not finite.
   */
  @Override
  public float train(int numSteps, BatchFeeder feeder) {
    return onDevice(
        () -> {
          checkSteps(numSteps, feeder);
          lastDivergence = null;
          FloatNet net = solver.net();
          double sum = 0;
          for (int i = 0; i < numSteps; i++) {
            inputs.feed(net, Phase.TRAIN, feeder);
            lastDivergence = step.run(net);
            if (lastDivergence != null) {
              return Float.NaN;
            }
            sum += step.loss();
          }
          lastDivergence = step.finish(net);
          if (lastDivergence != null) {
            return Float.NaN;
          }
          return numSteps == 0 ? Float.NaN : (float) (sum / numSteps);
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>Caffe's generator of the calling thread (Dropout; Caffe takes a 32-bit seed: the two halves
   * of {@code seed} folded) and the generator of this net's random crops and mirrors.
   */
  @Override
  public void reseed(long seed) {
    onDevice(
        () -> {
          Caffe.set_random_seed((int) (seed ^ (seed >>> 32)));
          transforms.reseed(seed);
        });
  }

  /** Blob values read back to the host so far by this net's training steps ({@code HostReads}). */
  long hostReads() {
    checkOpen();
    return reads.count();
  }

  @Override
  public String lastDivergence() {
    checkOpen();
    return lastDivergence;
  }

  @Override
  public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    return test(0, numSteps, feeder);
  }

  /** One per test net the solver defines ({@code test_iter}), or 1 when it defines none. */
  @Override
  public int testNetCount() {
    checkOpen();
    return testPhases.size();
  }

  @Override
  public Map<String, Float> test(int testNet, int numSteps, BatchFeeder feeder) {
    checkTestNet(testNet);
    return onDevice(
        () -> {
          checkSteps(numSteps, feeder);
          return testPhases.get(testNet).test(numSteps, feeder);
        });
  }

  @Override
  public Map<String, Shape> testInputShapes(int testNet) {
    checkTestNet(testNet);
    return TestPhaseNet.feedShapes(plan.testNet(testNet).inputs());
  }

  @Override
  public List<String> testNetStages(int testNet) {
    checkTestNet(testNet);
    return plan.testNet(testNet).stages();
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    Objects.requireNonNull(feeder, "feeder");
    Objects.requireNonNull(blobs, "blobs");
    // Copies go to the heap first: an NDArray allocated inside a PointerScope would be freed
    // when the scope closes.
    Map<String, Tensor> copies = onDevice(() -> testPhases.get(0).forward(feeder, blobs));
    Map<String, NDArray> out = new LinkedHashMap<>();
    copies.forEach((k, t) -> out.put(k, NDArray.create(t.data(), t.shape().dims())));
    return out;
  }

  @Override
  public WeightCollection getWeights() {
    return onDevice(() -> params.read(solver.net().params()));
  }

  /** Views of the parameter blobs' CPU memory (mutable: on a GPU the next step copies them up). */
  @Override
  public boolean withWeightViews(Consumer<List<NDArray>> action) {
    Objects.requireNonNull(action, "action");
    onDevice(() -> params.withViews(solver.net().params(), action));
    return true;
  }

  @Override
  public void setWeights(WeightCollection weights) {
    Objects.requireNonNull(weights, "weights");
    onDevice(() -> params.write(solver.net().params(), weights, ""));
  }

  @Override
  public int iteration() {
    checkOpen();
    return solver.iter();
  }

  @Override
  public double learningRate(long iteration) {
    checkOpen();
    return LearningRates.at(solver.param(), iteration);
  }

  /** Caffe's solver reads {@code max_iter} afresh at every step's learning rate. */
  @Override
  public boolean setMaxIterations(long maxIterations) {
    checkOpen();
    LearningRates.setMaxIter(solver.param(), maxIterations, plan.netName());
    return true;
  }

  /**
   * The solver's history (SGD momentum; the squared-gradient and update averages of the adaptive
   * solvers) as a heap copy, keyed like {@link #getWeights()}; solvers that keep more than one
   * history array per parameter (AdaDelta, Adam) add keys {@code layer#1}, {@code layer#2}, ...
   */
  public WeightCollection getSolverHistory() {
    return onDevice(solverStates::history);
  }

  /** Copies a history taken by {@link #getSolverHistory()} into this net's solver. */
  public void setSolverHistory(WeightCollection history) {
    Objects.requireNonNull(history, "history");
    onDevice(() -> solverStates.setHistory(history));
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
    Objects.requireNonNull(state, "state");
    onDevice(() -> solverStates.restore(state.iteration(), state.history()));
  }

  /**
   * This solver's state as Caffe's binary SolverState naming {@code learnedNet} for its weights (no
   * learned_net when null).
   */
  byte[] toSolverStateProto(String learnedNet) {
    return onDevice(() -> solverStates.toBytes(learnedNet));
  }

  /**
   * Restores a parsed .solverstate after checking, in Java, its history count, shapes and sizes
   * (Caffe would abort the JVM on a mismatch). Its learned_net reference is not followed.
   */
  void restoreSolverState(org.bytedeco.caffe.SolverState proto, String source) {
    onDevice(() -> solverStates.restore(proto, source));
  }

  /** The trained layers as Caffe's NetParameter (binary proto bytes of a .caffemodel). */
  byte[] toCaffeModel() {
    return onDevice(() -> TrainedLayers.toBytes(solver.net()));
  }

  /**
   * Copies the layers of a parsed .caffemodel into this net after checking, in Java, that every
   * learnable layer of this net is there with the same number and shapes of blobs (Caffe's own copy
   * would abort the JVM on a mismatch).
   */
  void copyTrainedLayersFrom(NetParameter model, String source) {
    onDevice(() -> TrainedLayers.copy(model, source, solver.net(), params, plan.netName()));
  }

  private static void checkSteps(int numSteps, BatchFeeder feeder) {
    if (numSteps < 0) {
      throw new IllegalArgumentException("numSteps must be >= 0 but was " + numSteps);
    }
    Objects.requireNonNull(feeder, "feeder");
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
    CaffeRuntime.useDevice(deviceId); // the mode it was built in: see PlainCaffeSolver#close
    natives.close();
  }

  @Override
  public String toString() {
    if (closed) {
      return "CaffeNet{" + plan.netName() + ", closed}";
    }
    return CaffeNetSummary.of(this, plan.solverType(), definition.device(), solver.iter(), params);
  }
}
