package org.sparknet.apps.charrnn;

import org.sparknet.api.NetDefinition;
import org.sparknet.apps.PositiveCounts;
import org.sparknet.apps.data.ClasspathText;

/**
 * The char-RNN definition shipped with the apps: an Embed, one LSTM layer and a softmax over the
 * 128 ASCII codes, unrolled over {@code steps} time steps ({@code unroll_len} in SINGA) for {@code
 * streams} parallel windows a batch.
 */
public final class CharRnn {
  /** Bytes 0..127; anything else in the text becomes {@link #UNKNOWN}. */
  public static final int VOCABULARY = 128;

  public static final int UNKNOWN = '?';

  private CharRnn() {}

  /** The net unrolled over {@code steps} x {@code streams}, with {@code hidden} LSTM units. */
  public static String netText(int steps, int streams, int hidden) {
    PositiveCounts.require("steps, streams and hidden units", steps, streams, hidden);
    return resource("char_rnn.prototxt")
        .replace("${T}", Integer.toString(steps))
        .replace("${N}", Integer.toString(streams))
        .replace("${H}", Integer.toString(hidden));
  }

  public static NetDefinition definition(
      int steps, int streams, int hidden, double baseLr, long seed) {
    String solver =
        resource("char_rnn_solver.prototxt")
            .replaceFirst("(?m)^base_lr: .*$", "base_lr: " + baseLr)
            .replaceFirst("(?m)^random_seed: .*$", "random_seed: " + seed);
    return new NetDefinition("caffe", solver, netText(steps, streams, hidden), null, seed, "cpu");
  }

  /** The token of a byte of text. */
  public static int token(byte b) {
    return b >= 0 ? b : UNKNOWN;
  }

  static String resource(String name) {
    return ClasspathText.read(
        CharRnn.class, name, "Resource " + name + " is missing from the sparknet-apps jar");
  }
}
