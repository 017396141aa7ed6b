package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A solver in Caffe's older format as the current one, as Caffe's {@code UpgradeSolverAsNeeded}
 * makes it (the enum {@code solver_type} as the string {@code type}), with the nets it embeds
 * ({@code net_param}, {@code train_net_param}, every {@code test_net_param}) upgraded by {@link
 * NetUpgrade}. Caffe 1.0 upgrades the net files a solver names but not embedded nets (it would
 * build a V1 net_param with no layers); SparkNet upgrades both alike.
 */
public final class SolverUpgrade {
  /** SolverParameter.SolverType to the solver registry's names (Caffe's UpgradeSolverType). */
  static final Map<String, String> TYPES =
      Map.of(
          "SGD", "SGD",
          "NESTEROV", "Nesterov",
          "ADAGRAD", "AdaGrad",
          "RMSPROP", "RMSProp",
          "ADADELTA", "AdaDelta",
          "ADAM", "Adam");

  private static final LegacyEnum SOLVER_TYPE =
      new LegacyEnum(
          "solver_type",
          TYPES,
          "Caffe's solver_type is one of",
          "or write type: \"SGD\", \"Adam\", ...");

  private static final List<String> EMBEDDED =
      List.of("net_param", "train_net_param", "test_net_param");

  private SolverUpgrade() {}

  /**
   * {@code solver} upgraded ({@code solver} itself is not changed); each note names what it is
   * about: "solver_type", or "net_param: V1 layers".
   */
  public static NetUpgrade.Result of(Message solver, String source) {
    List<String> notes = new ArrayList<>();
    Message out = new Message();
    for (Field f : solver.fields()) {
      if (f.name().equals("solver_type")) {
        out.add(Field.string("type", type(solver, f, source)));
        notes.add("solver_type");
      } else if (EMBEDDED.contains(f.name()) && f.isMessage()) {
        NetUpgrade.Result net = NetUpgrade.of(f.message(), source + " (" + f.name() + ")");
        for (String note : net.notes()) {
          notes.add(f.name() + ": " + note);
        }
        out.add(Field.message(f.name(), net.net()));
      } else {
        out.add(f);
      }
    }
    return notes.isEmpty()
        ? new NetUpgrade.Result(solver, notes)
        : new NetUpgrade.Result(out, notes);
  }

  private static String type(Message solver, Field legacy, String source) {
    Field type = solver.first("type");
    if (type != null) {
      throw new IllegalArgumentException(
          source
              + ", "
              + legacy.where()
              + ": the solver has both the old solver_type and type (at "
              + type.where()
              + "); Caffe refuses both: keep only type");
    }
    return SOLVER_TYPE.upgrade(legacy, source);
  }
}
