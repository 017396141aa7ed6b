package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.SolverNets.TestNetSource;
import org.sparknet.caffe.internal.TextFormat.Field;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * Builds a plan's test nets as Caffe's {@code Solver::InitTestNets} does: each net the solver
 * defines ({@link SolverNets}) with the state TEST merged with the net's own {@code state} and its
 * {@code test_state}, its data layers as Input layers and its inputs checked. A solver that defines
 * no test net gets one, the train net's source in phase TEST, for inference and for testing; where
 * that phase has no input of its own (a net whose only data layer is {@code include { phase: TRAIN
 * }}, which caffe train accepts when no test net is defined), it reads the train state's inputs.
 */
final class TestNets {
  private TestNets() {}

  /**
   * @param solver the parsed solver
   * @param source the train net's source with data layers already rewritten
   * @param sourceName names {@code source} in errors
   * @param generic whether {@code source} is the generic net ({@link SolverNets#hasGenericNet})
   * @param trainState the train net's state, whose inputs an implicit test net without its own
   *     reads
   */
  static List<TestNetPlan> of(
      Message solver,
      Message source,
      String sourceName,
      boolean generic,
      NetState trainState,
      List<Integer> sampleShape) {
    List<TestNetSource> defined = SolverNets.testNets(solver, generic);
    List<TestNetPlan> out = new ArrayList<>();
    for (TestNetSource d : defined) {
      Message net;
      String name;
      if (d.net() != null) {
        name = d.source();
        net = DataLayers.toInputLayers(d.net(), name, sampleShape);
        LayerArity.check(net, name);
      } else {
        name = sourceName;
        net = source.copy();
      }
      String stateWhere = "solver definition, test_state #" + d.index();
      out.add(build(d.index(), net, name, d.testState(), stateWhere, d.testIter(), sampleShape));
    }
    if (out.isEmpty()) {
      Message implicit = withTrainInputs(source.copy(), trainState, sourceName);
      out.add(build(0, implicit, sourceName, null, "", 0, sampleShape));
    }
    return List.copyOf(out);
  }

  /**
   * {@code net} itself when one of its Input layers is in phase TEST; otherwise {@code net} with
   * the rules dropped from the Input layers of {@code trainState}, so that they are in every phase.
   */
  private static Message withTrainInputs(Message net, NetState trainState, String source) {
    NetState test = NetState.of(Phase.TEST).merge(net.child("state"), source + ", field 'state'");
    List<Message> trainInputs = new ArrayList<>();
    int index = 0;
    for (Field f : net.all("layer")) {
      Message layer = f.message();
      if (layer.value("type", "").equals("Input")) {
        String where = NetPlan.describe(layer, index, source);
        if (StateRules.included(layer, test, where)) {
          return net;
        }
        if (StateRules.included(layer, trainState, where)) {
          trainInputs.add(layer);
        }
      }
      index++;
    }
    for (Message layer : trainInputs) {
      layer.remove("include").remove("exclude").remove("phase");
    }
    return net;
  }

  private static TestNetPlan build(
      int index,
      Message net,
      String name,
      Message testState,
      String stateWhere,
      int testIter,
      List<Integer> sampleShape) {
    NetState state =
        NetState.of(Phase.TEST)
            .merge(net.child("state"), name + ", field 'state'")
            .merge(testState, stateWhere);
    List<InputBlob> inputs = PhaseInputs.of(net, name, state, sampleShape);
    setState(net, state);
    return new TestNetPlan(index, state, net, inputs, testIter);
  }

  /** Replaces the net's {@code state} by {@code state}, which Caffe's Net filters its layers by. */
  static void setState(Message net, NetState state) {
    net.remove("state");
    net.add(Field.message("state", state.toMessage()));
  }
}
