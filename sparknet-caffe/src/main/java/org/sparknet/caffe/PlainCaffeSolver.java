package org.sparknet.caffe;

import java.util.Objects;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.sparknet.api.NetDefinition;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.NetPlan;
import org.sparknet.caffe.internal.Solvers;

/**
 * A Caffe solver with nothing of SparkNet around it: built from the same solver and net text that
 * {@link CaffeNet} builds (the definition after its Java checks: Data layers turned into Input
 * layers, Caffe's own testing, snapshots and display off, the seed applied), but stepped by the
 * caller through JavaCPP, with no input checks, transforms, loss read-back or divergence check. For
 * baselines that measure what SparkNet adds to Caffe's own loop, and for reading the layer shapes
 * of a built net.
 *
 * <p>Native memory: the solver and its TRAIN net, freed by {@link #close()}. Caffe's mode and
 * device are per thread: call {@link #useDevice()} on every thread that steps the solver.
 */
public final class PlainCaffeSolver implements AutoCloseable {
  private final String type;
  private final int deviceId;
  private final FloatSGDSolver solver;
  private boolean closed;

  private PlainCaffeSolver(String type, int deviceId, FloatSGDSolver solver) {
    this.type = type;
    this.deviceId = deviceId;
    this.solver = solver;
  }

  /**
   * Checks {@code definition} as {@link CaffeNet#create(NetDefinition, boolean)} does without the
   * dry run, and builds its solver on the calling thread.
   *
   * @throws IllegalArgumentException naming the file, layer and field of a bad definition
   */
  public static PlainCaffeSolver create(NetDefinition definition) {
    Objects.requireNonNull(definition, "definition");
    NetPlan plan = NetPlan.of(definition);
    int deviceId = CaffeRuntime.deviceId(definition.device());
    CaffeRuntime.useDevice(deviceId);
    return new PlainCaffeSolver(plan.solverType(), deviceId, Solvers.create(plan));
  }

  /** The solver type, as Caffe names it ("SGD", "Adam", ...). */
  public String type() {
    return type;
  }

  /** Sets Caffe's mode and device of the definition on the calling thread. */
  public void useDevice() {
    CaffeRuntime.useDevice(deviceId);
  }

  /** The solver (every Caffe solver type extends SGD's); owned by this object. */
  public FloatSGDSolver solver() {
    if (closed) {
      throw new IllegalStateException("PlainCaffeSolver has been closed; build a new one");
    }
    return solver;
  }

  /** The solver's TRAIN net. */
  public FloatNet net() {
    return solver().net();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      // In the mode and on the device it was built in: Caffe's Solver holds a Timer whose
      // destructor destroys CUDA events when the thread's mode is GPU, events that exist only if it
      // was GPU when the solver was built (a CPU net closed by a thread that had just run a GPU net
      // crashed in cuEventDestroy).
      CaffeRuntime.useDevice(deviceId);
      solver.close();
    }
  }
}
