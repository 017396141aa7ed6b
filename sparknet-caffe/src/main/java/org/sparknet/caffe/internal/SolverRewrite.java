package org.sparknet.caffe.internal;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.bytedeco.caffe.FloatSolverRegistry;
import org.bytedeco.caffe.StringVector;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A solver definition checked against what Caffe's solvers would CHECK (and abort on), then
 * rewritten for a solver that SparkNet steps: the net embedded, Caffe's own testing, snapshots and
 * display off, the seed and the device applied.
 */
final class SolverRewrite {
  private static final List<String> LR_POLICIES =
      List.of("fixed", "step", "exp", "inv", "multistep", "poly", "sigmoid");

  /** Fields that name files, run Caffe's own loop or pick the device: SparkNet sets them. */
  private static final List<String> REPLACED_FIELDS =
      List.of(
          "net",
          "net_param",
          "train_net",
          "train_net_param",
          "test_net",
          "test_net_param",
          "test_iter",
          "test_interval",
          "test_state",
          "train_state",
          "test_compute_loss",
          "test_initialization",
          "snapshot",
          "snapshot_prefix",
          "snapshot_diff",
          "snapshot_format",
          "snapshot_after_train",
          "display",
          "debug_info",
          "solver_mode",
          "device_id",
          "random_seed",
          "solver_type",
          "type");

  private SolverRewrite() {}

  /** The solver's type as Caffe names it, from {@code type} or the legacy {@code solver_type}. */
  static String solverType(Message solver) {
    String type = solver.value("type", null);
    Field legacy = solver.first("solver_type");
    if (type == null && legacy != null) {
      type = SolverUpgrade.TYPES.get(legacy.value());
    }
    if (type == null) {
      type = "SGD";
    }
    Set<String> known = new LinkedHashSet<>();
    try (PointerScope scope = new PointerScope()) {
      StringVector v = FloatSolverRegistry.SolverTypeList();
      for (long i = 0; i < v.size(); i++) {
        known.add(v.get(i).getString());
      }
    }
    if (!known.contains(type)) {
      Field f = solver.first("type");
      throw new IllegalArgumentException(
          "solver definition, "
              + (f == null ? "" : f.where() + ", ")
              + "field 'type': unknown solver type '"
              + type
              + "'; known types: "
              + known);
    }
    return type;
  }

  /** The checked solver of {@code type} over {@code trainNet}, ready for Caffe. */
  static Message rewrite(Message solver, String type, Message trainNet, long seed, int deviceId) {
    checkLearningRatePolicy(solver);
    checkSettings(solver, type);
    Message s = solver.copy();
    for (String f : REPLACED_FIELDS) {
      s.remove(f);
    }
    s.add(Field.string("type", type));
    s.add(Field.message("net_param", trainNet));
    s.add(Field.scalar("test_interval", "0"));
    s.add(Field.scalar("test_initialization", "false"));
    s.add(Field.scalar("snapshot", "0"));
    s.add(Field.scalar("snapshot_after_train", "false"));
    s.add(Field.scalar("display", "0"));
    s.add(Field.scalar("random_seed", Long.toString(seed & 0x7fffffffffffffffL)));
    s.add(Field.scalar("solver_mode", deviceId < 0 ? "CPU" : "GPU"));
    s.add(Field.scalar("device_id", Integer.toString(Math.max(0, deviceId))));
    return s;
  }

  private static void checkLearningRatePolicy(Message solver) {
    String lr = solver.value("lr_policy", null);
    if (lr == null || !LR_POLICIES.contains(lr)) {
      Field f = solver.first("lr_policy");
      throw new IllegalArgumentException(
          "solver definition, "
              + (f == null ? "" : f.where() + ", ")
              + "field 'lr_policy': "
              + (lr == null ? "missing" : "unknown policy '" + lr + "'")
              + "; give one of "
              + LR_POLICIES);
    }
    if (lr.equals("step") && number(solver, "stepsize", 0) <= 0) {
      throw new IllegalArgumentException(
          "solver definition, field 'stepsize': lr_policy \"step\" needs stepsize > 0");
    }
    if (lr.equals("multistep")) {
      List<String> sv = solver.values("stepvalue");
      for (int i = 1; i < sv.size(); i++) {
        if (Long.parseLong(sv.get(i)) <= Long.parseLong(sv.get(i - 1))) {
          throw new IllegalArgumentException(
              "solver definition, field 'stepvalue': values must increase, got " + sv);
        }
      }
    }
  }

  private static void checkSettings(Message solver, String type) {
    String reg = solver.value("regularization_type", "L2");
    if (!reg.equals("L1") && !reg.equals("L2")) {
      throw new IllegalArgumentException(
          "solver definition, field 'regularization_type': must be \"L1\" or \"L2\" but was \""
              + reg
              + "\"");
    }
    double momentum = number(solver, "momentum", 0);
    if ((type.equals("RMSProp") || type.equals("AdaGrad")) && momentum != 0) {
      throw new IllegalArgumentException(
          "solver definition, field 'momentum': the "
              + type
              + " solver does not use momentum, but momentum is "
              + momentum
              + "; remove it or set it to 0");
    }
    if (type.equals("RMSProp")) {
      double decay = number(solver, "rms_decay", 0.99);
      if (decay < 0 || decay > 1) {
        throw new IllegalArgumentException(
            "solver definition, field 'rms_decay': must lie in [0, 1] but is " + decay);
      }
    }
    if (number(solver, "iter_size", 1) < 1) {
      throw new IllegalArgumentException("solver definition, field 'iter_size': must be >= 1");
    }
  }

  private static double number(Message m, String field, double dflt) {
    String v = m.value(field, null);
    return v == null ? dflt : Double.parseDouble(v.toLowerCase(Locale.ROOT).replace("f", ""));
  }
}
