package org.sparknet.caffe.internal;

import java.util.List;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * A Caffe definition checked and rewritten in Java before Caffe sees it: data layers become {@code
 * Input} layers fed from the JVM ({@link DataLayers}), the train net and every test net the solver
 * defines ({@link SolverNets}, {@link TestNets}) get their {@link NetState} and their inputs are
 * checked in that state ({@link PhaseInputs}), and so are the layers' blob counts ({@link
 * LayerArity}); Caffe's own testing, snapshots and display are switched off and the seed and the
 * device applied ({@link SolverRewrite}). Every problem found throws {@link
 * IllegalArgumentException} naming the file, layer and field.
 *
 * @param solver the checked solver with the TRAIN net embedded ({@link #solverText()})
 * @param trainState the train net's state: TRAIN merged with the net's state and train_state
 * @param trainInputs the train net's input blobs, in the order the net declares them
 * @param testNets the test nets, in Caffe's order (at least one: see {@link TestNets})
 */
public record NetPlan(
    String netName,
    String solverType,
    Message solver,
    NetState trainState,
    List<InputBlob> trainInputs,
    List<TestNetPlan> testNets) {
  public NetPlan {
    trainInputs = List.copyOf(trainInputs);
    testNets = List.copyOf(testNets);
  }

  /** The solver, ready for Caffe: net_param embedded, testing and snapshots off. */
  public String solverText() {
    return TextFormat.print(solver);
  }

  /** Test net #0, the one inference and {@code forward} use. */
  public Message testNet() {
    return testNets.get(0).net();
  }

  /** Test net #0, ready for Caffe. */
  public String testNetText() {
    return testNets.get(0).text();
  }

  /** Test net {@code k}; throws naming the count when there is no such net. */
  public TestNetPlan testNet(int k) {
    if (k < 0 || k >= testNets.size()) {
      throw new IllegalArgumentException(
          "Net '"
              + netName
              + "' has "
              + testNets.size()
              + " test net(s); there is no test net #"
              + k);
    }
    return testNets.get(k);
  }

  /** The input blobs of the train net, or of test net #0 for TEST, in the net's order. */
  public List<InputBlob> inputs(Phase phase) {
    return phase == Phase.TRAIN ? trainInputs : testNets.get(0).inputs();
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

    SolverNets.checkTrainNet(solver);
    Message train = DataLayers.toInputLayers(net, netSource, def.sampleShape());
    NetState trainState = StatedNets.train(solver, train, netSource).state();
    List<InputBlob> trainInputs = PhaseInputs.of(train, netSource, trainState, def.sampleShape());
    boolean generic = SolverNets.hasGenericNet(solver, def.netText() != null);
    List<TestNetPlan> tests =
        TestNets.of(solver, train, netSource, generic, trainState, def.sampleShape());
    LayerArity.check(train, netSource);
    TestNets.setState(train, trainState); // after the test nets copied the net's own state

    String type = SolverRewrite.solverType(solver);
    Message s = SolverRewrite.rewrite(solver, type, train, def.seed(), deviceId);
    return new NetPlan(train.value("name", "net"), type, s, trainState, trainInputs, tests);
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
