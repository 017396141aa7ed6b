package org.sparknet.api.model;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.sparknet.api.NetDefinition;

/**
 * The part of a {@link NetDefinition} that its prototxt texts do not hold (engine, example shape,
 * seed, device), as the Java properties file {@code definition/net.properties} of a model
 * directory: plain text, readable beside the prototxt.
 */
final class DefinitionProperties {
  private DefinitionProperties() {}

  static byte[] encode(NetDefinition d) {
    StringBuilder s = new StringBuilder();
    s.append("engine=").append(d.engine()).append('\n');
    if (d.sampleShape() != null) {
      s.append("sampleShape=");
      for (int i = 0; i < d.sampleShape().size(); i++) {
        s.append(i > 0 ? "," : "").append(d.sampleShape().get(i));
      }
      s.append('\n');
    }
    s.append("seed=").append(d.seed()).append('\n');
    s.append("device=").append(d.device()).append('\n');
    return s.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * @throws IllegalArgumentException naming {@code source} and the key that is missing or bad
   */
  static NetDefinition decode(byte[] bytes, String solverText, String netText, String source) {
    Properties p = new Properties();
    try {
      p.load(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(source, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
    }
    String engine = p.getProperty("engine");
    if (engine == null || engine.isBlank()) {
      throw new IllegalArgumentException(source + " has no engine=...; add engine=caffe");
    }
    List<Integer> shape = null;
    String s = p.getProperty("sampleShape");
    try {
      if (s != null && !s.isBlank()) {
        shape = new ArrayList<>();
        for (String d : s.split(",")) {
          shape.add(Integer.parseInt(d.trim()));
        }
      }
      long seed = Long.parseLong(p.getProperty("seed", "0").trim());
      return new NetDefinition(
          engine.trim(), solverText, netText, shape, seed, p.getProperty("device", "cpu").trim());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          source + ": " + e.getMessage() + " (keys: engine, sampleShape=C,H,W, seed, device)", e);
    }
  }
}
