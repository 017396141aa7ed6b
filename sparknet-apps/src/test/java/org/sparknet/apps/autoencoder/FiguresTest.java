package org.sparknet.apps.autoencoder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sparknet.api.WeightCollection;
import org.sparknet.apps.testing.Pngs;
import org.sparknet.ndarray.Shape;
import org.sparknet.rbm.RbmNet;

/** The auto-encoder's figures without training: tile layout, per-filter scaling, the scatter. */
class FiguresTest {

  /**
   * Three 4x4 filters (W is [16, 3]), two a row: each tile spans black to white whatever its own
   * scale, and the gaps are white. Filter 1 holds 100x filter 0's weights; with one scale for all
   * filters filter 0's darkest pixel was 3, not 0.
   */
  @Test
  void filtersAreTiledEachOnItsOwnScale() throws IOException {
    int side = 4;
    float[] w = new float[side * side * 3];
    for (int p = 0; p < side * side; p++) {
      w[p * 3] = p; // filter 0: a ramp 0..15
      w[p * 3 + 1] = 100 * p; // filter 1: the same ramp, 100 times larger
      w[p * 3 + 2] = -p; // filter 2: the ramp reversed
    }
    WeightCollection rbm =
        new WeightCollection()
            .put(RbmNet.LAYER, List.of(new WeightCollection.Tensor(Shape.of(16, 3), w)));
    BufferedImage img = Pngs.decode(Figures.filters(rbm, 100, 2, side).toPng());
    assertArrayEquals(
        Figures.filterGridSize(3, 2, side), new int[] {img.getWidth(), img.getHeight()});
    int tile = side * Figures.FILTER_SCALE;
    int g = Figures.FILTER_GAP;
    for (int f = 0; f < 3; f++) {
      int x0 = g + (f % 2) * (tile + g);
      int y0 = g + (f / 2) * (tile + g);
      int first = img.getRGB(x0, y0) & 0xff;
      int last = img.getRGB(x0 + tile - 1, y0 + tile - 1) & 0xff;
      assertEquals(f == 2 ? 255 : 0, first, "filter " + f + " first pixel");
      assertEquals(f == 2 ? 0 : 255, last, "filter " + f + " last pixel");
    }
    assertEquals(0xffffff, img.getRGB(0, 0) & 0xffffff, "gap");
    assertEquals(0xffffff, img.getRGB(g + tile, g + 1) & 0xffffff, "gap between tiles");

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Figures.filters(rbm, 3, 2, 5));
    assertEquals("Filters of 16 visible units are not 5x5 images", e.getMessage());
  }

  @Test
  void codesAreAScatterByClass() throws IOException {
    float[][] codes = {{0, 0}, {1, 1}, {2, 0.5f}, {-1, 3}};
    int[] labels = {0, 1, 1, 2};
    var chart = Figures.codes(codes, labels, List.of("T-shirt/top", "Trouser", "Pullover"));
    assertEquals(3, chart.series().size());
    assertEquals(2, chart.series().get(1).size());
    BufferedImage img = Pngs.decode(chart.toPng());
    assertEquals(Figures.SCATTER_SIZE, img.getWidth());
    assertEquals(Figures.SCATTER_SIZE, img.getHeight());

    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Figures.codes(codes, new int[] {0, 1, 1, 3}, List.of("a", "b", "c")));
    assertEquals("Label 3 of code 3 names none of the 3 classes", e.getMessage());
  }
}
