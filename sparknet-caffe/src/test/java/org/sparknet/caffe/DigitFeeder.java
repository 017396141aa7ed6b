package org.sparknet.caffe;

import java.util.Map;
import java.util.Random;
import org.sparknet.api.BatchFeeder;
import org.sparknet.ndarray.NDArray;

/**
 * Feeds MNIST digits batch after batch, in an order reshuffled every epoch with a fixed seed.
 * Pixels are written as bytes 0..255, as Caffe's LMDB holds them; the model-zoo transform_param
 * {@code scale: 0.00390625} brings them to [0, 1).
 */
final class DigitFeeder implements BatchFeeder {
  private final MnistDigits digits;
  private final Random rnd;
  private final boolean shuffle;
  private int[] order;
  private int next;

  DigitFeeder(MnistDigits digits, long seed, boolean shuffle) {
    this.digits = digits;
    this.rnd = new Random(seed);
    this.shuffle = shuffle;
    newEpoch();
  }

  private void newEpoch() {
    if (shuffle) {
      order = MnistDigits.permutation(digits.size(), rnd);
    } else {
      order = java.util.stream.IntStream.range(0, digits.size()).toArray();
    }
    next = 0;
  }

  @Override
  public void fill(Map<String, NDArray> inputs) {
    NDArray data = inputs.get("data");
    NDArray label = inputs.get("label");
    int batch = data.shape().dim(0);
    float[] pixels = new float[MnistDigits.PIXELS];
    for (int i = 0; i < batch; i++) {
      if (next == order.length) {
        newEpoch();
      }
      int k = order[next++];
      for (int p = 0; p < MnistDigits.PIXELS; p++) {
        pixels[p] = digits.images[k * MnistDigits.PIXELS + p] * 255f;
      }
      data.slice(0, i).copyFrom(pixels);
      if (label != null) {
        label.setFlat(i, digits.labels[k]);
      }
    }
  }
}
