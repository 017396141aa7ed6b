package org.sparknet.api.testnet;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

  /** A pure-Java net cannot abort the JVM: every definition counts as checked. */
  @Override
  public boolean passedIsolatedCheck(NetDefinition definition) {
    return true;
  }

  @Override
  public void acceptIsolatedCheck(NetDefinition definition) {
    ACCEPTED.add(definition);
  }

  /** The definitions whose driver check this JVM's tasks accepted, in order. */
  public static List<NetDefinition> accepted() {
    return List.copyOf(ACCEPTED);
  }

  private static final List<NetDefinition> ACCEPTED = new CopyOnWriteArrayList<>();
}
