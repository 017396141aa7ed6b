package org.sparknet.apps.data;

import java.util.SplittableRandom;

/**
 * A permutation drawn from a seed, for the sources' one-time shuffle of Caffe's lists. {@link
 * SplittableRandom} mixes its seed: {@code java.util.Random}'s first draws for nearby seeds are
 * alike, and its shuffle of two files kept their order for each of the seeds 0 to 99.
 */
final class ShuffledOrder {
  private ShuffledOrder() {}

  /** 0 .. n - 1 in the order drawn from {@code seed} (Fisher-Yates). */
  static int[] of(int n, long seed) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    return order;
  }
}
