package org.sparknet.apps.charrnn;

import java.util.List;
import java.util.Map;
import java.util.Random;
import org.sparknet.api.Net;
import org.sparknet.api.NetProvider;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.NDArray;

/**
 * Generates text with trained char-RNN weights: the same net unrolled over one step and one stream
 * (the LSTM weights do not depend on either), fed one character at a time with cont = 1 so that
 * Caffe's recurrent layer carries its hidden state from one forward pass to the next.
 */
public final class TextSampler implements AutoCloseable {
  private final Net net;
  private final Random random;
  private boolean started;
  private int current;

  public TextSampler(int hidden, WeightCollection weights, long seed) {
    this.net = NetProvider.build(CharRnn.definition(1, 1, hidden, 0.001, seed));
    try {
      net.setWeights(weights);
    } catch (RuntimeException e) {
      net.close();
      throw e;
    }
    this.random = new Random(seed);
  }

  /** Feeds {@code prime}, then samples {@code length} characters at {@code temperature}. */
  public String sample(String prime, int length, double temperature) {
    if (prime.isEmpty() || length < 0 || !(temperature > 0)) {
      throw new IllegalArgumentException(
          "need a non-empty prime, length >= 0 and temperature > 0 (got '"
              + prime
              + "', "
              + length
              + ", "
              + temperature
              + ")");
    }
    StringBuilder out = new StringBuilder(prime);
    float[] logits = null;
    for (int i = 0; i < prime.length(); i++) {
      char c = prime.charAt(i);
      logits = step(c < CharRnn.VOCABULARY ? c : CharRnn.UNKNOWN);
    }
    for (int i = 0; i < length; i++) {
      int next = draw(logits, temperature);
      out.append((char) next);
      logits = step(next);
    }
    return out.toString();
  }

  private float[] step(int token) {
    current = token;
    Map<String, NDArray> out =
        net.forward(
            in -> {
              in.get("data").setFlat(0, current);
              in.get("cont").setFlat(0, started ? 1f : 0f);
              in.get("label").setFlat(0, 0f);
            },
            List.of("predict"));
    started = true;
    try (NDArray p = out.get("predict")) {
      return p.toArray();
    }
  }

  private int draw(float[] logits, double temperature) {
    double max = Double.NEGATIVE_INFINITY;
    for (float l : logits) {
      max = Math.max(max, l);
    }
    double[] p = new double[logits.length];
    double sum = 0;
    for (int i = 0; i < p.length; i++) {
      p[i] = Math.exp((logits[i] - max) / temperature);
      sum += p[i];
    }
    double u = random.nextDouble() * sum;
    for (int i = 0; i < p.length; i++) {
      u -= p[i];
      if (u <= 0) {
        return i;
      }
    }
    return p.length - 1;
  }

  @Override
  public void close() {
    net.close();
  }
}
