package org.sparknet.api;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * A trainable network with its solver: the SPI that engines implement ({@code sparknet-caffe}'s
 * CaffeNet; small pure-Java nets in tests). Instances hold native state, are used by one thread at
 * a time, and must be closed by whoever created them.
 *
 * <p>Data comes in through {@link BatchFeeder}s, which write each batch directly into the input
 * blobs. Weights go out and in as heap {@link WeightCollection}s keyed by layer name.
 */
public interface Net extends AutoCloseable {

  /** The net's name (Caffe's {@code name:} field). */
  String name();

  /** Input blobs of a phase and their shapes, in the order the net declares them. */
  Map<String, Shape> inputShapes(Phase phase);

  /**
   * Runs {@code numSteps} solver iterations. Before each, {@code feeder} fills the train-phase
   * inputs. Returns the mean training loss over the steps, or NaN when a step left the loss or the
   * weights non-finite: an engine stops stepping there (further steps on NaN weights can corrupt
   * native memory) and the caller treats the net as diverged.
   */
  float train(int numSteps, BatchFeeder feeder);

  /**
   * What went non-finite when the last {@link #train} call returned NaN, naming the layer (for
   * example "output 'conv1' of layer 'conv1' in the forward pass of iteration 27"), or null when
   * that call did not diverge or the engine cannot tell.
   */
  default String lastDivergence() {
    return null;
  }

  /**
   * Seeds the engine's random generators that training draws from (dropout masks, random crops and
   * mirrors) on the calling thread. The trainer calls it before each partition's steps of a round
   * with a seed derived from (seed, round, partition), so that a round repeats whichever thread
   * runs it and across a resume. Engines without randomness ignore it.
   */
  default void reseed(long seed) {}

  /**
   * Runs {@code numSteps} forward passes of the test-phase net (weights shared with training).
   * Returns the mean over the steps of each scalar output (loss, accuracy), keyed by blob name.
   */
  Map<String, Float> test(int numSteps, BatchFeeder feeder);

  /**
   * How many test nets the net has: Caffe builds one per {@code test_iter} of its solver (each with
   * its own {@code test_state} stages and its own data); at least 1. Test net #0 is the one {@link
   * #test(int, BatchFeeder)}, {@link #forward} and {@link #inputShapes(Phase) inputShapes(TEST)}
   * use.
   */
  default int testNetCount() {
    return 1;
  }

  /**
   * Runs {@code numSteps} forward passes of test net {@code testNet} (0 to {@link #testNetCount()}
   * - 1) and returns the mean of each scalar output, as {@link #test(int, BatchFeeder)} does for
   * net #0.
   *
   * @throws IllegalArgumentException when there is no such test net
   */
  default Map<String, Float> test(int testNet, int numSteps, BatchFeeder feeder) {
    checkTestNet(testNet);
    return test(numSteps, feeder);
  }

  /** The input blobs of test net {@code testNet} and their shapes, in the net's order. */
  default Map<String, Shape> testInputShapes(int testNet) {
    checkTestNet(testNet);
    return inputShapes(Phase.TEST);
  }

  /** The stages of test net {@code testNet}'s state (Caffe's {@code test_state}); often empty. */
  default List<String> testNetStages(int testNet) {
    checkTestNet(testNet);
    return List.of();
  }

  /** "Test net #1 (test-on-test)": the net's number and stages, as {@code caffe train} logs it. */
  default String describeTestNet(int testNet) {
    return describeTestNet(testNet, testNetStages(testNet));
  }

  /** "Test net #k", followed by the stages in parentheses when there are any. */
  static String describeTestNet(int testNet, List<String> stages) {
    return "Test net #"
        + testNet
        + (stages.isEmpty() ? "" : " (" + String.join(", ", stages) + ")");
  }

  /**
   * Throws {@link IllegalArgumentException} unless {@code testNet} is one of this net's test nets.
   */
  default void checkTestNet(int testNet) {
    if (testNet < 0 || testNet >= testNetCount()) {
      throw new IllegalArgumentException(
          "Net '"
              + name()
              + "' has "
              + testNetCount()
              + " test net(s) (0 to "
              + (testNetCount() - 1)
              + "); there is no test net #"
              + testNet);
    }
  }

  /**
   * One forward pass of the test-phase net over the batch that {@code feeder} writes. Returns
   * owning copies of the named blobs; the caller closes them.
   */
  Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs);

  /** A heap copy of every learnable array, by layer name, in net order. */
  WeightCollection getWeights();

  /**
   * Copies {@code weights} into the net. Rejects a collection with missing, extra or mis-shaped
   * layers before changing anything, with a message that lists them.
   */
  void setWeights(WeightCollection weights);

  /**
   * Calls {@code action} with views of every learnable array in the net's own memory, in the order
   * of {@link #getWeights()} (layer by layer, each layer's arrays in order), for arithmetic on the
   * weights without copying them (a {@code SolverGroup} averages its solvers this way after every
   * step). The views are valid only during the call; what the action writes goes into the net.
   * Returns false without calling {@code action} when the engine cannot lend its memory.
   */
  default boolean withWeightViews(Consumer<List<NDArray>> action) {
    return false;
  }

  /** The solver's iteration count (the step count that drives its learning-rate policy). */
  int iteration();

  /**
   * The learning rate the solver's policy gives at {@code iteration} (0-based: the step from there
   * to the next iteration), before per-layer multipliers; NaN when the engine has no such policy.
   */
  default double learningRate(long iteration) {
    return Double.NaN;
  }

  /**
   * Sets the solver's {@code max_iter}: the end of the learning-rate policies that depend on it
   * ({@code poly}), which a run planned by time moves as it re-plans. The steps themselves are
   * counted by the trainer, not stopped by the engine. Returns false when the engine has no such
   * setting (its policies do not depend on an end).
   */
  default boolean setMaxIterations(long maxIterations) {
    return false;
  }

  /**
   * Whether this engine can export and import its solver state ({@link #getSolverState()}, {@link
   * #setSolverState(SolverState)}). The trainer checkpoints solver states only when it can.
   */
  default boolean hasSolverState() {
    return false;
  }

  /**
   * A heap copy of the solver's state (iteration and history), for an exact resume.
   *
   * @throws UnsupportedOperationException when {@link #hasSolverState()} is false
   */
  default SolverState getSolverState() {
    throw new UnsupportedOperationException(
        "engine of net '" + name() + "' (" + getClass().getName() + ") has no solver state");
  }

  /**
   * Restores a state taken by {@link #getSolverState()} from a net of the same definition: the next
   * {@link #train} continues the learning-rate policy and momentum from it. Rejects a state whose
   * history does not match, before changing anything. The weights are not touched.
   *
   * @throws UnsupportedOperationException when {@link #hasSolverState()} is false
   * @throws IllegalArgumentException when the history's layers or shapes differ
   */
  default void setSolverState(SolverState state) {
    throw new UnsupportedOperationException(
        "engine of net '" + name() + "' (" + getClass().getName() + ") has no solver state");
  }

  /**
   * Bytes of native memory this net's blobs take, outside the JVM heap where Spark does not count
   * them: activations and their gradients, weights, gradients and solver history, and the test
   * nets' activations. An estimate from the shapes (layers' private buffers are not in it) for
   * sizing {@code spark.executor.memoryOverhead}; 0 for an engine that keeps its state on the heap.
   */
  default long nativeBytes() {
    return 0;
  }

  /** Frees all native state; idempotent. Any later call throws {@link IllegalStateException}. */
  @Override
  void close();
}
