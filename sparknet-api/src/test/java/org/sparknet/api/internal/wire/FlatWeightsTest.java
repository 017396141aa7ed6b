package org.sparknet.api.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;

/**
 * The engine-neutral path of {@link FlatWeights}: a net that does not lend its memory goes through
 * a WeightCollection. (CaffeNet's view path: FlatWeightsIT in sparknet-caffe.)
 */
class FlatWeightsTest {

  private static Net softmax() {
    return NetProvider.build(
        new NetDefinition(
            "java-softmax", "features=4\nclasses=3\nbatch=2\nlr=0.1", null, null, 3L, "cpu"));
  }

  @Test
  void aNetWithoutViewsRoundTripsThroughACollection() {
    try (Net net = softmax()) {
      assertFalse(net.withWeightViews(v -> {}), "the test engine lends no views");
      WeightLayout layout = WeightLayout.of(net.getWeights());
      float[] flat = FlatWeights.get(net, layout);
      assertArrayEquals(layout.flatten(net.getWeights()), flat);
      for (int i = 0; i < flat.length; i++) {
        flat[i] = i - 7.5f;
      }
      FlatWeights.set(net, layout, flat);
      assertArrayEquals(flat, FlatWeights.get(net, layout));
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> FlatWeights.set(net, layout, new float[flat.length - 1]));
      assertTrue(e.getMessage().contains(Integer.toString(flat.length)), e.getMessage());
    }
  }

  @Test
  void firstNonFiniteFindsNaNAndInfinitiesAnywhere() {
    float[] a = new float[1000];
    assertEquals(-1, FlatWeights.firstNonFinite(a));
    for (int at : new int[] {0, 517, 999}) {
      for (float bad : new float[] {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY}) {
        float[] b = a.clone();
        b[999] = Float.NaN; // a later one does not hide the first
        b[at] = bad;
        assertEquals(at, FlatWeights.firstNonFinite(b), bad + " at " + at);
      }
    }
  }
}
