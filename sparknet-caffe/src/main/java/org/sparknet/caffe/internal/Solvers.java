package org.sparknet.caffe.internal;

import org.bytedeco.caffe.FloatAdaDeltaSolver;
import org.bytedeco.caffe.FloatAdaGradSolver;
import org.bytedeco.caffe.FloatAdamSolver;
import org.bytedeco.caffe.FloatNesterovSolver;
import org.bytedeco.caffe.FloatRMSPropSolver;
import org.bytedeco.caffe.FloatSGDSolver;
import org.bytedeco.caffe.SolverParameter;
import org.bytedeco.javacpp.PointerScope;

/** Caffe solvers built from a checked {@link NetPlan}. */
public final class Solvers {
  private Solvers() {}

  /**
   * The plan's solver, with its TRAIN net, built on the calling thread's Caffe device (set it
   * first). The caller owns it and frees it with {@code close()}.
   */
  public static FloatSGDSolver create(NetPlan plan) {
    try (PointerScope scope = new PointerScope()) {
      SolverParameter sp = new SolverParameter();
      CaffeRuntime.readText(plan.solverText(), sp, "solver definition");
      FloatSGDSolver s = newSolver(plan.solverType(), sp);
      s.retainReference(); // survive the scope: close() releases it
      scope.detach(s);
      return s;
    }
  }

  private static FloatSGDSolver newSolver(String type, SolverParameter sp) {
    // The solver classes' own constructors, not FloatSolverRegistry.CreateSolver: JavaCPP cannot
    // free the raw pointer that CreateSolver returns (the whole solver, weights and history, would
    // leak), while a constructed solver is deleted by close().
    return switch (type) {
      case "SGD" -> new FloatSGDSolver(sp);
      case "Nesterov" -> new FloatNesterovSolver(sp);
      case "AdaGrad" -> new FloatAdaGradSolver(sp);
      case "RMSProp" -> new FloatRMSPropSolver(sp);
      case "AdaDelta" -> new FloatAdaDeltaSolver(sp);
      case "Adam" -> new FloatAdamSolver(sp);
      default -> throw new IllegalArgumentException("Unsupported solver type '" + type + "'");
    };
  }
}
