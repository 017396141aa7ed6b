package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Caffe's LSTM layer through CaffeNet: a character model learns real English text (the Caffe
 * licence notice of the zoo files), trained with BPTT over 16 steps with Adam. Recurrent state
 * carries across batches while cont = 1, as Caffe's RecurrentLayer does.
 */
class LstmIT {
  private static final int T = 16;
  private static final int N = 8;

  private static String netText() {
    return Zoo.text("../nets/char_lstm.prototxt");
  }

  private static byte[] text() {
    String s = Zoo.text("NOTICE");
    byte[] b = s.getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (b[i] & 0x7f);
    }
    return b;
  }

  /** N streams over the text, each continuing where its last batch stopped. */
  private static BatchFeeder streams(byte[] text) {
    int[] pos = new int[N];
    for (int n = 0; n < N; n++) {
      pos[n] = n * (text.length / N);
    }
    boolean[] started = new boolean[N];
    return (Map<String, NDArray> in) -> {
      NDArray data = in.get("data");
      NDArray cont = in.get("cont");
      NDArray label = in.get("label");
      for (int n = 0; n < N; n++) {
        for (int t = 0; t < T; t++) {
          if (pos[n] + 1 >= text.length) {
            pos[n] = 0;
            started[n] = false;
          }
          data.set(text[pos[n]], t, n);
          cont.set(started[n] ? 1f : 0f, t, n);
          label.set(text[pos[n] + 1], t, n);
          started[n] = true;
          pos[n]++;
        }
      }
    };
  }

  @Test
  void lstmLearnsNextCharacters() {
    String solver =
        "base_lr: 0.01\nlr_policy: \"fixed\"\ntype: \"Adam\"\nmomentum: 0.9\nmomentum2: 0.999\n";
    byte[] text = text();
    try (CaffeNet net = CaffeNet.create(NetDefinition.caffe(solver, netText(), null), false)) {
      assertEquals(Shape.of(T, N), net.inputShapes(Phase.TRAIN).get("data"));
      assertEquals(List.of("embed", "lstm", "predict"), net.getWeights().layerNames());
      BatchFeeder feeder = streams(text);
      float first = net.train(10, feeder);
      float last = Float.NaN;
      for (int k = 0; k < 30; k++) {
        last = net.train(10, feeder);
      }
      Map<String, Float> scores = net.test(5, streams(text));
      System.out.printf(
          "char LSTM: loss %.3f -> %.3f, next-char accuracy %.3f%n",
          first, last, scores.get("accuracy"));
      // ln(128) = 4.85 for a uniform guess; character frequencies alone give about 3
      assertTrue(first > 4.0f, "first loss " + first);
      assertTrue(last < 2.5f, "loss fell from " + first + " only to " + last);
      assertTrue(scores.get("accuracy") > 0.35f, "next-char accuracy " + scores.get("accuracy"));
    }
  }

  @Test
  void anEmbedIndexOutOfRangeIsRejectedBeforeCaffe() {
    String solver = "base_lr: 0.01\nlr_policy: \"fixed\"\n";
    try (CaffeNet net = CaffeNet.create(NetDefinition.caffe(solver, netText(), null), false)) {
      BatchFeeder bad =
          (Map<String, NDArray> in) -> {
            in.get("data").setFlat(5, 200f); // input_dim is 128
          };
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> net.train(1, bad));
      assertTrue(e.getMessage().contains("blob 'data'"), e.getMessage());
      assertTrue(e.getMessage().contains("[0, 128)"), e.getMessage());
    }
  }
}
