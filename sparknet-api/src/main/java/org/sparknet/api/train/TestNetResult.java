package org.sparknet.api.train;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sparknet.api.Net;

/**
 * What one test net gave after a round: its number and stages (Caffe's {@code test_state}) and the
 * example-weighted mean of each of its scalar outputs over its own test data.
 *
 * @param net the test net's number ({@link Net#testNetCount()}), as {@code caffe train} prints it
 * @param stages its stages; empty for a net without them
 * @param outputs the mean of each output (loss, accuracy), by blob name
 */
public record TestNetResult(int net, List<String> stages, Map<String, Float> outputs)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public TestNetResult {
    if (net < 0) {
      throw new IllegalArgumentException("Test net numbers start at 0 but got " + net);
    }
    stages = List.copyOf(stages);
    outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs)); // the net's order
  }

  /** "Test net #1 (test-on-test)". */
  public String describe() {
    return Net.describeTestNet(net, stages);
  }
}
