package org.sparknet.caffe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.ndarray.NDArray;

/** CaffeNet lends its parameter blobs as NDArray views: same values as getWeights, writes land. */
class WeightViewsIT {

  @Test
  void viewsReadAndWriteTheNetsOwnWeightsAndDieWithTheCall() {
    try (CaffeNet net = CaffeNet.create(TinyNets.definition())) {
      net.train(3, TinyNets.quadrants(1));
      WeightCollection before = net.getWeights();
      List<Tensor> expected = new ArrayList<>();
      for (String layer : before.layerNames()) {
        expected.addAll(before.get(layer));
      }
      List<NDArray> leaked = new ArrayList<>();
      assertTrue(
          net.withWeightViews(
              views -> {
                assertEquals(expected.size(), views.size());
                for (int i = 0; i < views.size(); i++) {
                  assertEquals(expected.get(i).shape(), views.get(i).shape());
                  assertArrayEquals(expected.get(i).data(), views.get(i).toArray());
                  views.get(i).scale(2f);
                }
                leaked.add(views.get(0));
              }));
      WeightCollection after = net.getWeights();
      assertTrue(after.allClose(before.copy().scale(2f), 0, 0), "writes went into the net");
      assertThrows(IllegalStateException.class, () -> leaked.get(0).get(0, 0));
    }
  }
}
