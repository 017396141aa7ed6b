package org.sparknet.api.testnet;

import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/** Engine "java-softmax": {@link SoftmaxNet}, a pure-Java net for testing the Spark loop. */
public final class SoftmaxNetProvider implements NetProvider {
  public static final String ENGINE = "java-softmax";

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition definition) {
    return new SoftmaxNet(definition);
  }
}
