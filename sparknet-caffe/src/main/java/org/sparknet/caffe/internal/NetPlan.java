package org.sparknet.caffe.internal;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A Caffe definition checked and rewritten in Java before Caffe sees it: data layers become {@code
 * Input} layers fed from the JVM ({@link DataLayers}), each phase's inputs are checked ({@link
 * PhaseInputs}) and so are the layers' blob counts ({@link LayerArity}), Caffe's own testing,
 * snapshots and display are switched off and the seed and the device applied ({@link
 * SolverRewrite}). Every problem found throws {@link IllegalArgumentException} naming the file,
 * layer and field.
 *
 * @param solver the checked solver with the TRAIN net embedded ({@link #solverText()})
 * @param testNet the checked TEST-phase net ({@link #testNetText()})
 */
public record NetPlan(
    String netName,
    String solverType,
    Message solver,
    Message testNet,
    Map<Phase, List<InputBlob>> inputs) {
  public NetPlan {
    inputs = Map.copyOf(inputs);
  }

  /** The solver, ready for Caffe: net_param embedded, testing and snapshots off. */
  public String solverText() {
    return TextFormat.print(solver);
  }

  /** The TEST-phase net, ready for Caffe. */
  public String testNetText() {
    return TextFormat.print(testNet);
  }

  /** The input blobs of {@code phase}, in the order the net declares them. */
  public List<InputBlob> inputs(Phase phase) {
    return inputs.get(phase);
  }

  public static NetPlan of(NetDefinition def) {
    // Checking asks Caffe's registries and parsers, which hand back temporary strings and protos;
    // the scope frees every one of them (a plan holds no native state).
    try (PointerScope scope = new PointerScope()) {
      return check(def);
    }
  }

  private static NetPlan check(NetDefinition def) {
    if (!def.engine().equals("caffe")) {
      throw new IllegalArgumentException(
          "This definition is for engine '" + def.engine() + "', not 'caffe'");
    }
    int deviceId = CaffeRuntime.deviceId(def.device());
    CaffeRuntime.checkDevice(def.device());

    Message solver = TextFormat.parse(def.solverText(), "solver definition");
    ProtoSchema.checkSolver(solver, "solver definition");
    solver = SolverUpgrade.of(solver, "solver definition").net();
    String netSource = def.netText() != null ? "net definition" : "solver definition (net_param)";
    Message net = def.netText() != null ? parseNet(def.netText(), netSource) : embeddedNet(solver);

    Message train = DataLayers.toInputLayers(net, netSource, def.sampleShape());
    Map<Phase, List<InputBlob>> inputs = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      inputs.put(phase, PhaseInputs.of(train, netSource, phase, def.sampleShape()));
    }
    LayerArity.check(train, netSource);

    String type = SolverRewrite.solverType(solver);
    Message s = SolverRewrite.rewrite(solver, type, train, def.seed(), deviceId);
    Message test = train.copy();
    test.remove("state");
    Message state = new Message();
    state.add(Field.scalar("phase", "TEST"));
    test.add(Field.message("state", state));
    return new NetPlan(train.value("name", "net"), type, s, test, inputs);
  }

  private static Message parseNet(String text, String source) {
    Message net = TextFormat.parse(text, source);
    ProtoSchema.checkNet(net, source);
    return NetUpgrade.of(net, source).net();
  }

  private static Message embeddedNet(Message solver) {
    Message embedded = solver.child("net_param");
    if (embedded == null) {
      embedded = solver.child("train_net_param");
    }
    if (embedded == null) {
      String file = solver.value("net", solver.value("train_net", null));
      if (file != null) {
        throw new IllegalArgumentException(
            "The solver definition names the net file '"
                + file
                + "' but no net text was given: pass that file's contents as"
                + " NetDefinition.netText, or embed the net in the solver as net_param { ... }");
      }
      throw new IllegalArgumentException(
          "The solver definition has no net: give NetDefinition.netText or a net_param { ... }"
              + " in the solver");
    }
    return embedded.copy();
  }

  static String layerName(Message layer, int index) {
    return layer.value("name", "#" + index);
  }

  /** "source, layer 'name' (type)" for messages. */
  static String describe(Message layer, int index, String source) {
    return source + ", layer '" + layerName(layer, index) + "' (" + layer.value("type", "?") + ")";
  }
}
