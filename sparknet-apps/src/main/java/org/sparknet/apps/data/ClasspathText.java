package org.sparknet.apps.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** UTF-8 text shipped on the class path: the prototxt files of the seed apps and benchmarks. */
public final class ClasspathText {
  private ClasspathText() {}

  /**
   * The resource {@code name}, found as {@code anchor.getResourceAsStream} finds it.
   *
   * @param ifMissing the message of the {@link IllegalStateException} when it is not there
   */
  public static String read(Class<?> anchor, String name, String ifMissing) {
    try (InputStream in = anchor.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(ifMissing);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read resource " + name, e);
    }
  }
}
