package org.sparknet.caffe.internal;

import java.util.List;
import org.sparknet.caffe.internal.TextFormat.Message;

/**
 * One checked test net of a {@link NetPlan}: its number, its state (phase, level, stages), the net
 * ready for Caffe (data layers as Input layers, the state set) and its inputs.
 *
 * @param index the test net's number, as {@code caffe train} prints it ("Test net #1")
 * @param state the state its layers are filtered for
 * @param net the net ready for Caffe ({@link #text()})
 * @param inputs its input blobs, in the order the net declares them
 * @param testIter the solver's {@code test_iter} for it (0 when the solver defines no test net and
 *     this one stands in for inference)
 */
public record TestNetPlan(
    int index, NetState state, Message net, List<InputBlob> inputs, int testIter) {
  public TestNetPlan {
    inputs = List.copyOf(inputs);
  }

  /** The net as prototxt, ready for Caffe. */
  public String text() {
    return TextFormat.print(net);
  }

  /** The stages of its state. */
  public List<String> stages() {
    return state.stages();
  }

  /** "Test net #1 (test-on-test)", or "Test net #0" without stages, as Caffe's log names it. */
  public String describe() {
    return "Test net #"
        + index
        + (state.stages().isEmpty() ? "" : " (" + String.join(", ", state.stages()) + ")");
  }
}
