package org.sparknet.caffe;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.sparknet.api.NetDefinition;

/** The unchanged BVLC model-zoo files under src/test/resources/zoo. */
final class Zoo {
  private Zoo() {}

  static String text(String name) {
    try (InputStream in = Zoo.class.getResourceAsStream("/zoo/" + name)) {
      if (in == null) {
        throw new IllegalStateException("No test resource zoo/" + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static NetDefinition lenet() {
    return NetDefinition.caffe(
        text("lenet_solver.prototxt"), text("lenet_train_test.prototxt"), List.of(1, 28, 28));
  }
}
