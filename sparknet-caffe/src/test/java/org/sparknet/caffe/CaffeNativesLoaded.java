package org.sparknet.caffe;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sparknet.caffe.internal.CaffeRuntime;

/**
 * Loads Caffe's natives before any test class of this module runs. Loading them allocates a few
 * bytes through JavaCPP once per JVM (16 measured), which {@code NativeLeakCheck} would otherwise
 * charge to whichever test happens to run first. Registered through JUnit's extension
 * auto-detection (META-INF/services of this module's test resources).
 */
public final class CaffeNativesLoaded implements BeforeAllCallback {
  @Override
  public void beforeAll(ExtensionContext context) {
    CaffeRuntime.load();
  }
}
