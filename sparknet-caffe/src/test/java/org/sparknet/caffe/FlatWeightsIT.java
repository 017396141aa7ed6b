package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.internal.wire.FlatWeights;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.ndarray.Shape;

/**
 * The round's weights go into and out of a CaffeNet through its blob views (one copy each way): the
 * same values as the WeightCollection path, and a layout of another net is refused before a single
 * float is written.
 */
class FlatWeightsIT {

  @Test
  void flatCopiesThroughTheViewsEqualTheCollectionPath() {
    try (CaffeNet net = CaffeNet.create(TinyNets.definition())) {
      net.train(2, TinyNets.quadrants(1));
      WeightCollection w = net.getWeights();
      WeightLayout layout = WeightLayout.of(w);
      float[] flat = FlatWeights.get(net, layout);
      assertArrayEquals(layout.flatten(w), flat);

      for (int i = 0; i < flat.length; i++) {
        flat[i] = flat[i] * -3f + i * 1e-3f;
      }
      FlatWeights.set(net, layout, flat);
      String diff = net.getWeights().differenceFrom(layout.toCollection(flat), 0, 0);
      assertTrue(diff == null, diff);
    }
  }

  @Test
  void aLayoutOfAnotherShapeIsRefusedNamingTheLayerAndChangesNothing() {
    try (CaffeNet net = CaffeNet.create(TinyNets.definition())) {
      WeightCollection before = net.getWeights();
      WeightLayout good = WeightLayout.of(before);
      List<List<Shape>> shapes = new ArrayList<>();
      for (List<Shape> l : good.shapes()) {
        shapes.add(new ArrayList<>(l));
      }
      int last = shapes.size() - 1;
      Shape bias = shapes.get(last).get(1);
      shapes.get(last).set(0, Shape.of((int) bias.size(), 1)); // same layer, wrong weight shape
      WeightLayout bad = WeightLayout.of(good.layers(), shapes);
      float[] values = new float[bad.size()];
      java.util.Arrays.fill(values, 7f);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> FlatWeights.set(net, bad, values));
      assertTrue(e.getMessage().contains("'" + good.layers().get(last) + "'"), e.getMessage());
      String diff = net.getWeights().differenceFrom(before, 0, 0);
      assertTrue(diff == null, "nothing was written: " + diff);
    }
  }
}
