package org.sparknet.api.internal.wire;

import java.util.List;
import org.sparknet.api.Net;
import org.sparknet.ndarray.NDArray;

/**
 * Moves a round's flat weight array into and out of a worker net with one copy each way. A net that
 * lends its memory ({@link Net#withWeightViews}) is read and written in place; any other goes
 * through a {@link org.sparknet.api.WeightCollection}, which costs more copies and their garbage:
 * per round, a worker's largest allocations are its weights.
 */
public final class FlatWeights {
  private static final int BLOCK = 2048;

  private FlatWeights() {}

  /** Writes {@code flat} (in {@code layout} order) into {@code net}'s weights. */
  public static void set(Net net, WeightLayout layout, float[] flat) {
    checkLength(layout, flat);
    if (!eachView(net, layout, (v, at) -> v.copyFrom(flat, at))) {
      net.setWeights(layout.toCollection(flat));
    }
  }

  /** A new flat array (in {@code layout} order) of {@code net}'s weights. */
  public static float[] get(Net net, WeightLayout layout) {
    return get(net, layout, new float[layout.size()]);
  }

  /**
   * {@code net}'s weights in {@code layout} order, copied into {@code into} when the net lends its
   * memory (a worker reuses one array round after round: a large net's weights are its largest
   * allocation), else a new array.
   */
  public static float[] get(Net net, WeightLayout layout, float[] into) {
    checkLength(layout, into);
    return eachView(net, layout, (v, at) -> v.copyTo(into, at))
        ? into
        : layout.flatten(net.getWeights());
  }

  /** One view and where its values start in the flat array. */
  private interface ViewCopy {
    void copy(NDArray view, int offset);
  }

  /**
   * Calls {@code copy} for each of the net's views in layout order after checking their shapes;
   * false (nothing called) when the net lends no views.
   */
  private static boolean eachView(Net net, WeightLayout layout, ViewCopy copy) {
    return net.withWeightViews(
        views -> {
          checkShapes(layout, views);
          long at = 0;
          for (NDArray v : views) {
            copy.copy(v, Math.toIntExact(at));
            at += v.size();
          }
        });
  }

  /**
   * Index of the first NaN or infinity in {@code a}, or -1. Blocks are checked by their largest
   * magnitude, a reduction C2 vectorises; only a block that holds a non-finite value is searched.
   */
  public static int firstNonFinite(float[] a) {
    for (int lo = 0; lo < a.length; lo += BLOCK) {
      int hi = Math.min(a.length, lo + BLOCK);
      float max = 0f;
      for (int i = lo; i < hi; i++) {
        max = Math.max(max, Math.abs(a[i]));
      }
      if (!(max <= Float.MAX_VALUE)) {
        for (int i = lo; i < hi; i++) {
          if (!Float.isFinite(a[i])) {
            return i;
          }
        }
      }
    }
    return -1;
  }

  private static void checkLength(WeightLayout layout, float[] flat) {
    if (flat.length != layout.size()) {
      throw new IllegalArgumentException(
          "Weight layout holds " + layout.size() + " floats but the values have " + flat.length);
    }
  }

  // The views come in getWeights() order, the order the layout was taken in; a net built from
  // another definition would differ here, and must fail before a single float is copied.
  private static void checkShapes(WeightLayout layout, List<NDArray> views) {
    int k = 0;
    for (int i = 0; i < layout.layers().size(); i++) {
      for (var shape : layout.shapes().get(i)) {
        if (k >= views.size() || !views.get(k).shape().equals(shape)) {
          throw new IllegalArgumentException(
              "The net's weights do not match the trainer's layout at layer '"
                  + layout.layers().get(i)
                  + "': expected "
                  + shape
                  + ", the net has "
                  + (k < views.size() ? views.get(k).shape() : "no more arrays"));
        }
        k++;
      }
    }
    if (k != views.size()) {
      throw new IllegalArgumentException(
          "The net has " + views.size() + " weight arrays, the trainer's layout " + k);
    }
  }
}
