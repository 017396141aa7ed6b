package org.sparknet.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.api.averaging.Averager;
import org.sparknet.ndarray.Shape;
import org.sparknet.testing.NDAssert;
import org.sparknet.testing.Tolerance;

class WeightCollectionTest {

  /** Special values that must survive averaging of identical copies bit for bit. */
  static final float[] SPECIAL = {
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    Float.MIN_VALUE,
    Float.MIN_NORMAL,
    0f,
    -0f,
    1f / 3,
    1e-30f,
    3e38f,
    Float.MIN_VALUE * 3
  };

  static WeightCollection random(long seed, int... layerSizes) {
    Random rnd = new Random(seed);
    WeightCollection w = new WeightCollection();
    for (int l = 0; l < layerSizes.length; l++) {
      int n = layerSizes[l];
      float[] filters = new float[n * 3];
      float[] bias = new float[n];
      for (int i = 0; i < filters.length; i++) {
        filters[i] = (float) (rnd.nextGaussian() * Math.pow(10, rnd.nextInt(7) - 3));
      }
      for (int i = 0; i < bias.length; i++) {
        bias[i] = (float) rnd.nextGaussian();
      }
      w.put(
          "layer" + l, List.of(new Tensor(Shape.of(n, 3), filters), new Tensor(Shape.of(n), bias)));
    }
    return w;
  }

  static WeightCollection withSpecialValues(long seed) {
    WeightCollection w = random(seed, 50, 7);
    w.put("special", List.of(new Tensor(Shape.of(SPECIAL.length), SPECIAL.clone())));
    return w;
  }

  static void assertBitwiseEqual(WeightCollection expected, WeightCollection actual) {
    assertNull(expected.structureDifference(actual));
    for (String layer : expected.layerNames()) {
      for (int i = 0; i < expected.get(layer).size(); i++) {
        float[] e = expected.get(layer).get(i).data();
        float[] a = actual.get(layer).get(i).data();
        for (int j = 0; j < e.length; j++) {
          assertEquals(
              Float.floatToRawIntBits(e[j]),
              Float.floatToRawIntBits(a[j]),
              layer + "[" + i + "][" + j + "]: expected " + e[j] + " but was " + a[j]);
        }
      }
    }
  }

  /**
   * Averaging N identical collections returns them bit for bit: mean() adds the weighted
   * differences from the first collection (all -0) to it. The plain float recipe (sum in float,
   * times 1f/N) does not, for these N: checked here so that the property is not vacuous.
   */
  @ParameterizedTest(name = "N = {0}")
  @ValueSource(ints = {1, 2, 3, 5, 6, 7, 10, 33})
  void averagingIdenticalCollectionsReturnsThemExactly(int n) {
    WeightCollection w = withSpecialValues(n);
    List<WeightCollection> copies = new ArrayList<>(Collections.nCopies(n, w));
    WeightCollection mean = WeightCollection.mean(copies);
    assertBitwiseEqual(w, mean);
    assertNotSame(w.get("layer0").get(0).data(), mean.get("layer0").get(0).data());

    if (Integer.bitCount(n) != 1) {
      float[] x = w.get("layer0").get(0).data();
      int inexact = 0;
      for (float v : x) {
        float s = v;
        for (int k = 1; k < n; k++) {
          s += v;
        }
        if (s * (1f / n) != v) {
          inexact++;
        }
      }
      assertTrue(inexact > 0, "float sum times 1/N would already be exact for N = " + n);
    }
  }

  @Test
  void averagingIdenticalLargeCollectionsInParallelChunksIsExact() {
    WeightCollection w = random(1, (int) (Averager.PARALLEL_THRESHOLD / 3) + 1000);
    assertTrue(w.numFloats() >= Averager.PARALLEL_THRESHOLD, "takes the parallel path");
    assertBitwiseEqual(w, WeightCollection.mean(List.of(w, w, w)));
  }

  /**
   * Averaging distinct collections matches a double-precision reference within the rule's stated
   * bound (Averager): 2^-24 (|mean| + (N+2) max_k |x_k - x_0|), doubled for slack; these inputs are
   * far apart (independent draws), the case where that bound is widest.
   */
  @ParameterizedTest(name = "N = {0}")
  @ValueSource(ints = {2, 3, 8})
  void averagingDistinctCollectionsMatchesADoubleReference(int n) {
    List<WeightCollection> ws = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      ws.add(random(100 + k, 40, 5, 1));
    }
    WeightCollection mean = WeightCollection.mean(ws);
    for (String layer : ws.get(0).layerNames()) {
      for (int i = 0; i < ws.get(0).get(layer).size(); i++) {
        Tensor t = ws.get(0).get(layer).get(i);
        float[] ref = new float[t.data().length];
        for (int j = 0; j < ref.length; j++) {
          double s = 0;
          for (WeightCollection w : ws) {
            s += w.get(layer).get(i).data()[j];
          }
          ref[j] = (float) (s / n);
        }
        Tensor m = mean.get(layer).get(i);
        assertEquals(t.shape(), m.shape());
        for (int j = 0; j < ref.length; j++) {
          double spread = 0;
          for (WeightCollection w : ws) {
            spread = Math.max(spread, Math.abs(w.get(layer).get(i).data()[j] - t.data()[j]));
          }
          double bound = 2 * 0x1p-24 * (Math.abs(ref[j]) + (n + 2) * spread);
          assertEquals(ref[j], m.data()[j], bound, layer + "[" + i + "][" + j + "]");
        }
      }
    }
  }

  /** N = 2 near the float range: a + b overflows in float, so that block is redone in double. */
  @Test
  void averagingTwoHugeValuesDoesNotOverflow() {
    float[] x = {3e38f, -3e38f, Float.MAX_VALUE, 1f};
    float[] z = {2e38f, -1e38f, Float.MAX_VALUE, 2f};
    WeightCollection a = new WeightCollection().put("l", List.of(new Tensor(Shape.of(4), x)));
    WeightCollection b = new WeightCollection().put("l", List.of(new Tensor(Shape.of(4), z)));
    NDAssert.assertAllClose(
        new float[] {2.5e38f, -2e38f, Float.MAX_VALUE, 1.5f},
        WeightCollection.mean(List.of(a, b)).get("l").get(0).data(),
        Tolerance.FLOAT);
  }

  @Test
  void meanRejectsEmptyAndMismatchedInputs() {
    IllegalArgumentException empty =
        assertThrows(IllegalArgumentException.class, () -> WeightCollection.mean(List.of()));
    assertEquals("Cannot average an empty list of weight collections", empty.getMessage());
    IllegalArgumentException shape =
        assertThrows(
            IllegalArgumentException.class,
            () -> WeightCollection.mean(List.of(random(1, 4), random(1, 4), random(1, 5))));
    assertTrue(
        shape
            .getMessage()
            .startsWith(
                "Cannot average weight collection 2 with collection 0: Weight collections differ:"
                    + " layer 'layer0' array 0 has shape [5, 3], expected [4, 3]"),
        shape.getMessage());
  }

  @Test
  void structureDifferenceListsMissingExtraAndShapeDifferences() {
    WeightCollection a = random(1, 4, 5, 6);
    assertNull(a.structureDifference(random(2, 4, 5, 6)), "same structure, other values");

    WeightCollection b = new WeightCollection();
    b.put("layer1", List.of(new Tensor(Shape.of(5, 4), new float[20]), a.get("layer1").get(1)));
    b.put("layer2", List.of(a.get("layer2").get(0)));
    b.put("fc9", List.of(new Tensor(Shape.of(1), new float[1])));
    assertEquals(
        "Weight collections differ: missing layers [layer0]; unexpected layers [fc9];"
            + " layer 'layer1' array 0 has shape [5, 4], expected [5, 3];"
            + " layer 'layer2' has 1 arrays, expected 2"
            + " (expected layers [layer0, layer1, layer2], found [layer1, layer2, fc9])",
        a.structureDifference(b));

    WeightCollection reordered = new WeightCollection();
    for (String l : List.of("layer2", "layer0", "layer1")) {
      reordered.put(l, a.get(l));
    }
    assertEquals(
        "Weight collections differ: layer order differs: expected [layer0, layer1, layer2] but"
            + " found [layer2, layer0, layer1] (expected layers [layer0, layer1, layer2], found"
            + " [layer2, layer0, layer1])",
        a.structureDifference(reordered));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> a.add(reordered));
    assertEquals(a.structureDifference(reordered), e.getMessage());
  }

  @Test
  void addScaledScaleAndDifferenceFrom() {
    WeightCollection a = random(1, 6);
    WeightCollection b = random(2, 6);
    WeightCollection c = a.copy().addScaled(-0.5f, b).scale(2f).add(b);
    // the same float operations in the same order on plain arrays: bit for bit
    for (int i = 0; i < 2; i++) {
      float[] x = a.get("layer0").get(i).data();
      float[] y = b.get("layer0").get(i).data();
      float[] ref = new float[x.length];
      for (int j = 0; j < x.length; j++) {
        ref[j] = (x[j] + -0.5f * y[j]) * 2f + y[j];
      }
      NDAssert.assertAllClose(ref, c.get("layer0").get(i).data(), Tolerance.EXACT);
    }
    assertNull(a.differenceFrom(a.copy(), 0, 0));
    WeightCollection d = a.copy();
    d.get("layer0").get(1).data()[2] += 1;
    assertTrue(
        a.differenceFrom(d, 0, 0).startsWith("layer 'layer0' array 1 index 2: this has "),
        a.differenceFrom(d, 0, 0));
    assertEquals(a.numFloats(), a.zerosLike().numFloats());
    assertNull(a.firstNonFinite());
    d.get("layer0").get(0).data()[4] = Float.NaN;
    assertEquals("layer0[0][4]=NaN", d.firstNonFinite());
  }

  @Test
  void javaSerializationRoundTripsExactly() throws Exception {
    WeightCollection w = withSpecialValues(9);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(w);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      WeightCollection back = (WeightCollection) in.readObject();
      assertBitwiseEqual(w, back);
      assertEquals(w.layerNames(), back.layerNames());
      assertArrayEquals(SPECIAL, back.get("special").get(0).data());
    }
  }

  @Test
  void tensorRejectsDataOfTheWrongLength() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new Tensor(Shape.of(2, 3), new float[5]));
    assertEquals("Weight array of shape [2, 3] needs 6 floats but has 5", e.getMessage());
  }

  /**
   * Caffe's copy by layer name: shared layers take the source's arrays, layers the source lacks
   * keep their own, layers only the source has are ignored. Broken on purpose: keeping the net's
   * arrays for shared layers left conv1 at 1.0 where 5.0 was copied; sharing instead of copying the
   * arrays gave 99.0 after the file changed; without the shape check or the no-shared-layer check
   * nothing was thrown.
   */
  @Test
  void copyByLayerNameCopiesSharedLayersAndKeepsTheRest() {
    WeightCollection net = new WeightCollection();
    net.put("conv1", List.of(new Tensor(Shape.of(2, 2), new float[] {1, 1, 1, 1})));
    net.put("ip_new", List.of(new Tensor(Shape.of(3), new float[] {7, 7, 7})));
    WeightCollection file = new WeightCollection();
    file.put("extra", List.of(new Tensor(Shape.of(1), new float[] {-1})));
    file.put("conv1", List.of(new Tensor(Shape.of(2, 2), new float[] {5, 6, 7, 8})));

    WeightCollection start = net.copyByLayerName(file, "zoo.caffemodel");
    assertEquals(List.of("conv1", "ip_new"), start.layerNames());
    assertArrayEquals(new float[] {5, 6, 7, 8}, start.get("conv1").get(0).data());
    assertArrayEquals(new float[] {7, 7, 7}, start.get("ip_new").get(0).data());
    file.get("conv1").get(0).data()[0] = 99;
    net.get("ip_new").get(0).data()[0] = 99;
    assertEquals(5f, start.get("conv1").get(0).data()[0], "a deep copy, not the file's arrays");
    assertEquals(7f, start.get("ip_new").get(0).data()[0], "a deep copy, not the net's arrays");

    WeightCollection reshaped = new WeightCollection();
    reshaped.put("conv1", List.of(new Tensor(Shape.of(4, 1), new float[] {1, 2, 3, 4})));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> net.copyByLayerName(reshaped, "zoo.caffemodel"));
    assertTrue(
        e.getMessage().contains("zoo.caffemodel")
            && e.getMessage().contains("layer 'conv1' has [[4, 1]] there but [[2, 2]] here"),
        e.getMessage());

    WeightCollection unrelated = new WeightCollection();
    unrelated.put("fc9", List.of(new Tensor(Shape.of(1), new float[] {1})));
    e =
        assertThrows(
            IllegalArgumentException.class, () -> net.copyByLayerName(unrelated, "other.bin"));
    assertTrue(e.getMessage().startsWith("other.bin shares no layer name"), e.getMessage());
  }
}
