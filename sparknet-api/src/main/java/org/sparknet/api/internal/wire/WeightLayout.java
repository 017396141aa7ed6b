package org.sparknet.api.internal.wire;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.WeightCollection;
import org.sparknet.ndarray.Shape;

/**
 * The structure of a net's weights (layer names, array shapes, in order) without the values, so
 * that the values can travel as one flat {@code float[]}: the cheapest thing to broadcast, collect
 * and sum. Small; shipped inside closures.
 */
public final class WeightLayout implements Serializable {
  private static final long serialVersionUID = 1L;

  private final List<String> layers;
  private final List<List<Shape>> shapes;
  private final int size;

  private WeightLayout(List<String> layers, List<List<Shape>> shapes) {
    this.layers = List.copyOf(layers);
    List<List<Shape>> s = new ArrayList<>();
    long n = 0;
    for (List<Shape> l : shapes) {
      s.add(List.copyOf(l));
      for (Shape sh : l) {
        n += sh.size();
      }
    }
    if (n > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("A net with " + n + " weights is too large to ship");
    }
    this.shapes = List.copyOf(s);
    this.size = (int) n;
  }

  public static WeightLayout of(WeightCollection weights) {
    List<String> names = weights.layerNames();
    List<List<Shape>> shapes = new ArrayList<>();
    for (String name : names) {
      List<Shape> l = new ArrayList<>();
      for (WeightCollection.Tensor t : weights.get(name)) {
        l.add(t.shape());
      }
      shapes.add(l);
    }
    return new WeightLayout(names, shapes);
  }

  /** Total floats. */
  public int size() {
    return size;
  }

  public List<String> layers() {
    return layers;
  }

  public List<List<Shape>> shapes() {
    return shapes;
  }

  /** Rebuilds a layout read back from a checkpoint. */
  public static WeightLayout of(List<String> layers, List<List<Shape>> shapes) {
    return new WeightLayout(layers, shapes);
  }

  /** The values of {@code weights}, which must have this layout, as one array in layout order. */
  public float[] flatten(WeightCollection weights) {
    String diff = structureDifference(weights);
    if (diff != null) {
      throw new IllegalArgumentException(diff);
    }
    float[] flat = new float[size];
    int at = 0;
    for (String layer : layers) {
      for (WeightCollection.Tensor t : weights.get(layer)) {
        System.arraycopy(t.data(), 0, flat, at, t.data().length);
        at += t.data().length;
      }
    }
    return flat;
  }

  /** A new collection of this layout holding a copy of {@code flat}. */
  public WeightCollection toCollection(float[] flat) {
    if (flat.length != size) {
      throw new IllegalArgumentException(
          "Weight layout holds " + size + " floats but the values have " + flat.length);
    }
    WeightCollection w = new WeightCollection();
    int at = 0;
    for (int i = 0; i < layers.size(); i++) {
      List<WeightCollection.Tensor> ts = new ArrayList<>();
      for (Shape s : shapes.get(i)) {
        float[] d = new float[(int) s.size()];
        System.arraycopy(flat, at, d, 0, d.length);
        at += d.length;
        ts.add(new WeightCollection.Tensor(s, d));
      }
      w.put(layers.get(i), ts);
    }
    return w;
  }

  /** Null when {@code weights} has exactly this layout, else what differs. */
  public String structureDifference(WeightCollection weights) {
    return toCollection(new float[size]).structureDifference(weights);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WeightLayout w && w.layers.equals(layers) && w.shapes.equals(shapes);
  }

  @Override
  public int hashCode() {
    return layers.hashCode() * 31 + shapes.hashCode();
  }

  @Override
  public String toString() {
    return "WeightLayout" + layers + shapes + " (" + size + " floats)";
  }
}
