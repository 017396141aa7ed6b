package org.sparknet.api.testnet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test of the loop on {@link SoftmaxNet}s leaves none open: the nets alive after each test are
 * those alive before it ({@code @ExtendWith(OpenNetsCheck.class)}).
 */
public final class OpenNetsCheck implements BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(OpenNetsCheck.class);

  @Override
  public void beforeEach(ExtensionContext context) {
    context.getStore(NS).put("live", SoftmaxNet.live());
  }

  @Override
  public void afterEach(ExtensionContext context) {
    int before = context.getStore(NS).get("live", Integer.class);
    assertEquals(before, SoftmaxNet.live(), "nets left open by the test");
  }
}
