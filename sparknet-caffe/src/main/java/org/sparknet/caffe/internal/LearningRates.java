package org.sparknet.caffe.internal;

import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.BytePointer;

/**
 * Caffe's learning-rate policies ({@code SGDSolver::GetLearningRate}, which the presets do not
 * expose) as pure functions of the solver parameters and the iteration, so that the trainer can
 * report the rate a round ended with without asking the solver to step.
 */
public final class LearningRates {
  private LearningRates() {}

  /**
   * The rate Caffe's solver applies at {@code iter} (0-based: the step that takes the solver from
   * {@code iter} to {@code iter + 1} iterations), before each layer's {@code lr_mult}; NaN for a
   * policy Caffe does not know (which the solver's checks reject before it runs).
   */
  public static double at(SolverParameter p, long iter) {
    double base = p.base_lr();
    double gamma = p.gamma();
    String policy;
    try (BytePointer name = p.lr_policy()) { // a copy of the std::string, freed here
      policy = name.getString();
    }
    return switch (policy) {
      case "fixed" -> base;
      case "step" -> base * Math.pow(gamma, p.stepsize() > 0 ? iter / p.stepsize() : 0);
      case "exp" -> base * Math.pow(gamma, iter);
      case "inv" -> base * Math.pow(1 + gamma * iter, -p.power());
      case "multistep" -> base * Math.pow(gamma, multistepPosition(p, iter + 1));
      case "poly" -> base * Math.pow(1 - (double) iter / p.max_iter(), p.power());
      case "sigmoid" -> base / (1 + Math.exp(-gamma * (iter - p.stepsize())));
      default -> Double.NaN;
    };
  }

  /**
   * Sets {@code max_iter} in the solver's own parameters: its learning-rate policy reads the field
   * at every step. Caffe keeps it as a 32-bit int.
   */
  public static void setMaxIter(SolverParameter p, long maxIter, String netName) {
    if (maxIter < 1 || maxIter > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "max_iter of net '" + netName + "' must be in [1, 2^31 - 1] but was " + maxIter);
    }
    p.set_max_iter((int) maxIter);
  }

  /**
   * The "multistep" policy's position after {@code done} iterations, as Caffe advances it: at most
   * one step per iteration, at the first iteration that reaches the next step value.
   */
  static int multistepPosition(SolverParameter p, long done) {
    int n = p.stepvalue_size();
    int step = 0;
    long next = 0; // the first iteration at which the next advance may happen
    while (step < n) {
      long at = Math.max(next, p.stepvalue(step));
      if (at >= done) {
        break;
      }
      step++;
      next = at + 1;
    }
    return step;
  }
}
