package org.sparknet.rbm;

import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * Engine {@value #ENGINE}: {@link RbmNet}, found through {@code ServiceLoader}. The definition's
 * solver text is an {@link RbmConfig}; it has no net text.
 */
public final class RbmNetProvider implements NetProvider {
  public static final String ENGINE = "rbm";

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition definition) {
    return new RbmNet(definition);
  }

  @Override
  public NetDefinition withBatchSize(NetDefinition definition, int batchSize) {
    RbmConfig c = RbmConfig.parse(definition.solverText()).withBatches(batchSize, batchSize);
    return withText(definition, c.text());
  }

  @Override
  public NetDefinition withBaseLearningRate(NetDefinition definition, double rate) {
    RbmConfig c = RbmConfig.parse(definition.solverText());
    return withText(definition, c.withSolver((float) rate, c.momentum(), c.weightDecay()).text());
  }

  private static NetDefinition withText(NetDefinition d, String text) {
    return new NetDefinition(d.engine(), text, d.netText(), d.sampleShape(), d.seed(), d.device());
  }
}
