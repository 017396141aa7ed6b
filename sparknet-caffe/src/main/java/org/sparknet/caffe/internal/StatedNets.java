package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * The nets a solver instantiates, each with the NetState Caffe gives it: the train net (TRAIN, the
 * net's own state, the solver's train_state) and every test net (TEST, the net's own state, its
 * test_state), as Solver::InitTrainNet and InitTestNets build them. For whoever needs to know which
 * layers each net keeps before any net is built (the data layers each net reads from).
 */
public final class StatedNets {
  private StatedNets() {}

  /**
   * A net definition and the state that filters its layers.
   *
   * @param source names the net in messages
   */
  public record StatedNet(NetState state, Message net, String source) {
    /** Whether {@code layer} is in this net (Caffe's StateMeetsRule over its include/exclude). */
    public boolean keeps(Message layer) {
      return StateRules.included(layer, state, source);
    }
  }

  /** The train net: {@code net} (the generic net or train net) in its TRAIN state. */
  public static StatedNet train(Message solver, Message net, String source) {
    NetState state =
        NetState.of(Phase.TRAIN)
            .merge(net.child("state"), source + ", field 'state'")
            .merge(solver.child("train_state"), "solver definition, field 'train_state'");
    return new StatedNet(state, net, source);
  }

  /**
   * Every test net, in Caffe's order: the solver's own test_net_params, then one instance of the
   * generic {@code net} per remaining test_iter; when the solver defines none, one test net of the
   * generic net, as SparkNet tests with.
   *
   * @param netTextGiven whether {@code net} came as a file of its own rather than from the solver
   * @throws IllegalArgumentException where Caffe's InitTestNets would fail a CHECK
   */
  public static List<StatedNet> tests(
      Message solver, Message net, String source, boolean netTextGiven) {
    List<StatedNet> out = new ArrayList<>();
    boolean generic = SolverNets.hasGenericNet(solver, netTextGiven);
    for (SolverNets.TestNetSource d : SolverNets.testNets(solver, generic)) {
      Message m = d.net() != null ? d.net() : net;
      String name = d.net() != null ? d.source() : source;
      NetState state =
          NetState.of(Phase.TEST)
              .merge(m.child("state"), name + ", field 'state'")
              .merge(d.testState(), "solver definition, test_state #" + d.index());
      out.add(new StatedNet(state, m, name));
    }
    if (out.isEmpty()) {
      NetState state =
          NetState.of(Phase.TEST).merge(net.child("state"), source + ", field 'state'");
      out.add(new StatedNet(state, net, source));
    }
    return out;
  }
}
