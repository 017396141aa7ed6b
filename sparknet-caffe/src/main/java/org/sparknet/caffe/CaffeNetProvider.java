package org.sparknet.caffe;

import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * The "caffe" engine: builds {@link CaffeNet}s; registered through {@link java.util.ServiceLoader}.
 */
public final class CaffeNetProvider implements NetProvider {
  public static final String ENGINE = "caffe";

  @Override
  public String engine() {
    return ENGINE;
  }

  @Override
  public Net create(NetDefinition definition) {
    return CaffeNet.create(definition);
  }
}
