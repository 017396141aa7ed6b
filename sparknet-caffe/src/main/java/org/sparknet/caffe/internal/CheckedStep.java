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
 * outputs are checked ({@link Divergence#firstNonFiniteOutput}) before the backward pass: clear the
 * parameter gradients; {@code iter_size} times forward, check, backward; {@code ApplyUpdate()};
 * {@code ++iter_}. For finite nets this is the same sequence of Caffe calls as {@code Step(1)} with
 * SparkNet's solver settings (Caffe's testing, display, snapshots and callbacks off), so the
 * weights are bit for bit the same ({@code CheckedStepIT}). On a non-finite output the step stops
 * before any backward pass: no gradient, no update, and the iteration does not advance.
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
  private final int lastLayer;
  private final int iterSize;

  /** The step of {@code solver}, whose TRAIN net {@code divergence} checks. */
  public CheckedStep(FloatSGDSolver solver, Divergence divergence) {
    this.solver = solver;
    this.divergence = divergence;
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
   * not kept: the caller's pointer scope frees them). Returns null after a finite step, or what
   * went non-finite, naming the layer: an output of the forward pass (then nothing else ran) or the
   * weights after the update.
   */
  public String run(FloatNet net) {
    int iteration = solver.iter();
    net.ClearParamDiffs();
    for (int i = 0; i < iterSize; i++) {
      net.ForwardFromTo(0, lastLayer);
      String bad = divergence.firstNonFiniteOutput(net);
      if (bad != null) {
        return bad
            + " in the forward pass of iteration "
            + iteration
            + " (no backward pass or update ran)";
      }
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
    String bad = divergence.firstNonFiniteWeights(net);
    return bad == null ? null : bad + " after the update of iteration " + iteration;
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
