package org.sparknet.caffe.internal;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.FloatSolver;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * One solver iteration as Caffe's {@code Solver::Step(1)} runs it, split so that the forward
 * outputs are checked before the backward pass: clear the parameter gradients; {@code iter_size}
 * times forward, check, backward; {@code ApplyUpdate()}; {@code ++iter_}. For finite nets this is
 * the same sequence of Caffe calls as {@code Step(1)} with SparkNet's solver settings (Caffe's
 * testing, display, snapshots and callbacks off), so the weights are bit for bit the same ({@code
 * CheckedStepIT}). On a non-finite output the step stops before any backward pass: no gradient, no
 * update, and the iteration does not advance.
 *
 * <p>The check costs one host read a forward pass ({@link StepProbe}), which also brings the loss.
 * The weights an update writes are summed into the probe right after it and read with the next
 * forward pass's outputs, or by {@link #finish} after a call's last step: a non-finite weight is
 * still named as the weights of its layer after that update, and the forward pass that ran on it in
 * between is harmless (a forward pass over non-finite values writes nothing out of place; only the
 * backward pass does, and it does not run). Blobs are searched one by one only when the probe's sum
 * is not finite.
 *
 * <p>Two parts of {@code Step} are not public in the presets. {@code ApplyUpdate()} is a protected
 * native method, called here through reflection (the classes are on the class path). Caffe has no
 * setter for the iteration: {@code iter_} is the member declared right after {@code param_} in
 * solver.hpp, and {@code param()} returns a reference to {@code param_}, so {@code iter_} sits
 * {@code sizeof(SolverParameter)} bytes after it. That place is checked when the step is built (a
 * value written there must come back through {@code iter()}) and after every step.
 */
public final class CheckedStep {
  private static final Method APPLY_UPDATE = applyUpdate();
  private static final long PARAM_BYTES = Loader.sizeof(SolverParameter.class);

  private final FloatSGDSolver solver;
  private final Divergence divergence;
  private final LossTerms lossTerms;
  private final StepProbe probe;
  private final HostReads reads;
  private final int lastLayer;
  private final int iterSize;
  private int unreadWeightsOf = -1; // the iteration whose updated weights the probe holds unread
  private double loss = Double.NaN;

  /**
   * The step of {@code solver}, whose TRAIN net {@code divergence} and {@code lossTerms} describe;
   * {@code probe} (not owned) reads them back through {@code reads}.
   */
  public CheckedStep(
      FloatSGDSolver solver,
      Divergence divergence,
      LossTerms lossTerms,
      StepProbe probe,
      HostReads reads) {
    this.solver = solver;
    this.divergence = divergence;
    this.lossTerms = lossTerms;
    this.probe = probe;
    this.reads = reads;
    this.lastLayer = (int) solver.net().layers().size() - 1;
    this.iterSize = Math.max(1, solver.param().iter_size());
    checkIterationField();
  }

  private static Method applyUpdate() {
    try {
      Method m = FloatSolver.class.getDeclaredMethod("ApplyUpdate");
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      throw new IllegalStateException(
          "Caffe's Solver::ApplyUpdate is not reachable in these presets: " + e, e);
    }
  }

  /**
   * Runs the step on the inputs already in {@code net}, the solver's TRAIN net (wrappers of it are
   * not kept: the caller's pointer scope frees them). Returns null after a finite forward pass (its
   * loss is then {@link #loss()}), or what went non-finite, naming the layer: an output of the
   * forward pass (then nothing else ran) or the weights after the previous step's update.
   */
  public String run(FloatNet net) {
    int iteration = solver.iter();
    net.ClearParamDiffs();
    for (int i = 0; i < iterSize; i++) {
      net.ForwardFromTo(0, lastLayer);
      divergence.addOutputs(net, probe);
      float[] read = probe.read(net, true);
      int weightsOf = unreadWeightsOf;
      unreadWeightsOf = -1;
      if (!Float.isFinite(read[0])) {
        String bad = search(net, weightsOf, iteration);
        if (bad != null) {
          return bad;
        }
      }
      loss = lossTerms.loss(read, 1);
      net.Backward();
    }
    try {
      APPLY_UPDATE.invoke(solver);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("Caffe's Solver::ApplyUpdate is not accessible", e);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException("Solver::ApplyUpdate failed", e.getCause());
    }
    iteration().put(iteration + 1);
    if (solver.iter() != iteration + 1) {
      throw new IllegalStateException(
          "Caffe's Solver::iter_ is not where CheckedStep expects it; the solver's iteration is "
              + solver.iter());
    }
    divergence.addWeights(net, probe);
    unreadWeightsOf = iteration;
    return null;
  }

  /** The loss of the last forward pass that {@link #run} found finite. */
  public double loss() {
    return loss;
  }

  /**
   * Checks the weights of the last update, if the probe holds them unread: one read after a call's
   * last step. Returns null when they are finite, or which layer's weights are not.
   */
  public String finish(FloatNet net) {
    if (unreadWeightsOf < 0) {
      return null;
    }
    int of = unreadWeightsOf;
    unreadWeightsOf = -1;
    if (Float.isFinite(probe.read(net, false)[0])) {
      return null;
    }
    String bad = divergence.firstNonFiniteWeights(net, reads);
    return bad == null ? null : bad + " after the update of iteration " + of;
  }

  /**
   * What the probe's non-finite sum came from (the weights of iteration {@code weightsOf}'s update
   * first, when it held them), or null when every blob is finite after all.
   */
  private String search(FloatNet net, int weightsOf, int iteration) {
    if (weightsOf >= 0) {
      String bad = divergence.firstNonFiniteWeights(net, reads);
      if (bad != null) {
        return bad + " after the update of iteration " + weightsOf;
      }
    }
    String bad = divergence.firstNonFiniteOutput(net, reads);
    return bad == null
        ? null
        : bad
            + " in the forward pass of iteration "
            + iteration
            + " (no backward pass or update ran)";
  }

  /** Solver::iter_, valid while the solver lives; not owned (no deallocator). */
  private IntPointer iteration() {
    long at = solver.param().address() + PARAM_BYTES;
    return new IntPointer(
        new Pointer() {
          {
            address = at;
          }
        });
  }

  private void checkIterationField() {
    IntPointer it = iteration();
    int was = it.get();
    boolean found = was == solver.iter();
    if (found) {
      it.put(was + 12345);
      found = solver.iter() == was + 12345;
      it.put(was);
    }
    if (!found) {
      throw new IllegalStateException(
          "Caffe's Solver::iter_ is not sizeof(SolverParameter) = "
              + PARAM_BYTES
              + " bytes after param_ in these presets; CheckedStep cannot advance the iteration");
    }
  }
}
