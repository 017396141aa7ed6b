package org.sparknet.api;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.sparknet.api.averaging.Averager;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * The learnable weights of a net: an ordered map from layer name to that layer's weight arrays (for
 * a convolution: filters, then bias), each a shape and its floats in row-major order.
 *
 * <p>This is what crosses the wire between the Spark driver and the executors, so it lives on the
 * heap (no native memory to free, safe to hand to Spark). The arithmetic that averaging needs is a
 * tight loop over contiguous {@code float[]}s, which the JIT vectorises; see BENCHMARKS.md for its
 * cost against a plain copy of the same bytes.
 *
 * <p>On the wire: Java serialization (default form, validated on read) or, much more compactly,
 * Kryo through {@code org.sparknet.api.spark.SparkNetKryoRegistrator} (layer names, shapes, raw
 * floats).
 */
public final class WeightCollection implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LinkedHashMap<String, List<Tensor>> layers;

  /** One weight array: a shape and its data, row-major. The data array is shared, not copied. */
  public static final class Tensor implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Shape shape;
    private final float[] data;

    public Tensor(Shape shape, float[] data) {
      Objects.requireNonNull(shape, "shape");
      Objects.requireNonNull(data, "data");
      if (shape.size() != data.length) {
        throw new IllegalArgumentException(
            "Weight array of shape "
                + shape
                + " needs "
                + shape.size()
                + " floats but has "
                + data.length);
      }
      this.shape = shape;
      this.data = data;
    }

    /** A heap copy of the contents of {@code array}. */
    public static Tensor copyOf(NDArray array) {
      return new Tensor(array.shape(), array.toArray());
    }

    public Shape shape() {
      return shape;
    }

    /** The backing array itself (not a copy): writing to it changes this tensor. */
    public float[] data() {
      return data;
    }

    Tensor copy() {
      return new Tensor(shape, data.clone());
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      if (shape == null || data == null || shape.size() != data.length) {
        throw new InvalidObjectException(
            "Serialized weight array of shape "
                + shape
                + " carries "
                + (data == null ? "no data" : data.length + " floats"));
      }
    }
  }

  public WeightCollection() {
    this.layers = new LinkedHashMap<>();
  }

  private WeightCollection(LinkedHashMap<String, List<Tensor>> layers) {
    this.layers = layers;
  }

  /** Adds a layer's weight arrays, in the order the net holds them. */
  public WeightCollection put(String layer, List<Tensor> weights) {
    Objects.requireNonNull(layer, "layer");
    if (layers.containsKey(layer)) {
      throw new IllegalArgumentException(
          "Layer '" + layer + "' is already in this weight collection");
    }
    layers.put(layer, new ArrayList<>(weights));
    return this;
  }

  /** Layer names in order. */
  public List<String> layerNames() {
    return List.copyOf(layers.keySet());
  }

  /** The weight arrays of {@code layer}; throws if the layer is absent. */
  public List<Tensor> get(String layer) {
    List<Tensor> w = layers.get(layer);
    if (w == null) {
      throw new IllegalArgumentException(
          "No layer '" + layer + "' in this weight collection; it holds " + layers.keySet());
    }
    return Collections.unmodifiableList(w);
  }

  public boolean contains(String layer) {
    return layers.containsKey(layer);
  }

  public int numLayers() {
    return layers.size();
  }

  /** Total number of floats over all arrays. */
  public long numFloats() {
    long n = 0;
    for (List<Tensor> ts : layers.values()) {
      for (Tensor t : ts) {
        n += t.data.length;
      }
    }
    return n;
  }

  /** A deep copy. */
  public WeightCollection copy() {
    LinkedHashMap<String, List<Tensor>> m = new LinkedHashMap<>();
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      List<Tensor> ts = new ArrayList<>(e.getValue().size());
      for (Tensor t : e.getValue()) {
        ts.add(t.copy());
      }
      m.put(e.getKey(), ts);
    }
    return new WeightCollection(m);
  }

  /** A collection of the same layers and shapes, filled with zeros. */
  public WeightCollection zerosLike() {
    LinkedHashMap<String, List<Tensor>> m = new LinkedHashMap<>();
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      List<Tensor> ts = new ArrayList<>(e.getValue().size());
      for (Tensor t : e.getValue()) {
        ts.add(new Tensor(t.shape, new float[t.data.length]));
      }
      m.put(e.getKey(), ts);
    }
    return new WeightCollection(m);
  }

  // ---------------------------------------------------------------- arithmetic (in place)

  /** this += other; both must have the same layers and shapes. Returns this. */
  public WeightCollection add(WeightCollection other) {
    return addScaled(1f, other);
  }

  /** this += alpha * other; both must have the same layers and shapes. Returns this. */
  public WeightCollection addScaled(float alpha, WeightCollection other) {
    checkSameStructure(other);
    Iterator<List<Tensor>> it = other.layers.values().iterator();
    for (List<Tensor> mine : layers.values()) {
      List<Tensor> theirs = it.next();
      for (int i = 0; i < mine.size(); i++) {
        axpy(alpha, theirs.get(i).data, mine.get(i).data);
      }
    }
    return this;
  }

  /** this *= alpha. Returns this. */
  public WeightCollection scale(float alpha) {
    for (List<Tensor> ts : layers.values()) {
      for (Tensor t : ts) {
        float[] y = t.data;
        for (int j = 0; j < y.length; j++) {
          y[j] *= alpha;
        }
      }
    }
    return this;
  }

  /**
   * The element-wise mean of {@code collections}, a new collection; all must have the same
   * structure. Computed by {@link Averager#equalMeans}: averaging N identical collections returns
   * them bit for bit, and the result does not depend on the thread count.
   *
   * @throws IllegalArgumentException when the list is empty or the structures differ
   */
  public static WeightCollection mean(Collection<WeightCollection> collections) {
    if (collections.isEmpty()) {
      throw new IllegalArgumentException("Cannot average an empty list of weight collections");
    }
    List<WeightCollection> all = List.copyOf(collections);
    WeightCollection first = all.get(0);
    for (int k = 1; k < all.size(); k++) {
      String diff = first.structureDifference(all.get(k));
      if (diff != null) {
        throw new IllegalArgumentException(
            "Cannot average weight collection " + k + " with collection 0: " + diff);
      }
    }
    List<float[][]> inputs = new ArrayList<>();
    List<float[]> outputs = new ArrayList<>();
    WeightCollection w = new WeightCollection();
    for (String layer : first.layerNames()) {
      List<Tensor> ts = first.get(layer);
      List<Tensor> out = new ArrayList<>(ts.size());
      for (int i = 0; i < ts.size(); i++) {
        float[][] xs = new float[all.size()][];
        for (int k = 0; k < xs.length; k++) {
          xs[k] = all.get(k).get(layer).get(i).data();
        }
        float[] y = new float[xs[0].length];
        inputs.add(xs);
        outputs.add(y);
        out.add(new Tensor(ts.get(i).shape(), y));
      }
      w.put(layer, out);
    }
    Averager.equalMeans(inputs, outputs);
    return w;
  }

  private static void axpy(float alpha, float[] x, float[] y) {
    for (int j = 0; j < y.length; j++) {
      y[j] += alpha * x[j];
    }
  }

  /** True when every value is finite (no NaN, no infinity). */
  public boolean isFinite() {
    return firstNonFinite() == null;
  }

  /** Names the first non-finite value as "layer[array][index]=value", or null if all are finite. */
  public String firstNonFinite() {
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      List<Tensor> ts = e.getValue();
      for (int i = 0; i < ts.size(); i++) {
        float[] d = ts.get(i).data;
        for (int j = 0; j < d.length; j++) {
          if (!Float.isFinite(d[j])) {
            return e.getKey() + "[" + i + "][" + j + "]=" + d[j];
          }
        }
      }
    }
    return null;
  }

  /**
   * Caffe's copy by layer name ({@code Net::CopyTrainedLayersFrom}, as {@code caffe train
   * --weights} applies it to fine-tune): a deep copy of this collection in which every layer that
   * {@code source} also holds takes source's arrays. Layers that source lacks keep this
   * collection's; layers only source holds are ignored. The one rule every engine's fine-tuning
   * goes through.
   *
   * @param sourceName names source in messages, for example the file it came from
   * @throws IllegalArgumentException naming every shared layer whose arrays differ in number or
   *     shape, or when source shares no layer with this collection (the wrong file)
   */
  public WeightCollection copyByLayerName(WeightCollection source, String sourceName) {
    List<String> problems = new ArrayList<>();
    LinkedHashMap<String, List<Tensor>> m = new LinkedHashMap<>();
    int shared = 0;
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      List<Tensor> theirs = source.layers.get(e.getKey());
      List<Tensor> mine = e.getValue();
      if (theirs != null) {
        shared++;
        List<Shape> want = shapes(mine);
        if (!want.equals(shapes(theirs))) {
          problems.add(
              "layer '" + e.getKey() + "' has " + shapes(theirs) + " there but " + want + " here");
        }
      }
      List<Tensor> ts = new ArrayList<>(mine.size());
      for (Tensor t : theirs != null ? theirs : mine) {
        ts.add(t.copy());
      }
      m.put(e.getKey(), ts);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "Cannot copy the layers of "
              + sourceName
              + " by name: "
              + String.join("; ", problems)
              + ". A layer whose shape changes must be renamed (it then keeps its initial"
              + " weights)");
    }
    if (shared == 0 && !layers.isEmpty()) {
      throw new IllegalArgumentException(
          sourceName
              + " shares no layer name with the net (it holds "
              + source.layers.keySet()
              + ", the net has "
              + layers.keySet()
              + "); is it the weights of another net?");
    }
    return new WeightCollection(m);
  }

  private static List<Shape> shapes(List<Tensor> ts) {
    List<Shape> out = new ArrayList<>(ts.size());
    for (Tensor t : ts) {
      out.add(t.shape);
    }
    return out;
  }

  // ---------------------------------------------------------------- structure and comparison

  /**
   * Throws {@link IllegalArgumentException} unless {@code other} has the same layers, in the same
   * order, with the same number and shapes of arrays; the message lists every difference.
   */
  public void checkSameStructure(WeightCollection other) {
    String diff = structureDifference(other);
    if (diff != null) {
      throw new IllegalArgumentException(diff);
    }
  }

  /** Describes how the structure of {@code other} differs from this one, or null if it does not. */
  public String structureDifference(WeightCollection other) {
    return WeightDifferences.ofStructure(each(Tensor::shape), other.each(Tensor::shape));
  }

  /** Each layer's arrays mapped by {@code f}, in order. */
  private <T> Map<String, List<T>> each(Function<Tensor, T> f) {
    Map<String, List<T>> out = new LinkedHashMap<>();
    layers.forEach((k, v) -> out.put(k, v.stream().map(f).toList()));
    return out;
  }

  /**
   * Null when both have the same structure and every pair of values satisfies {@code |a - b| <=
   * atol + rtol * |b|} (b from {@code other}); otherwise a description of the first difference.
   */
  public String differenceFrom(WeightCollection other, double rtol, double atol) {
    String structural = structureDifference(other);
    if (structural != null) {
      return structural;
    }
    return WeightDifferences.ofValues(each(Tensor::data), other.each(Tensor::data), rtol, atol);
  }

  /** True when {@link #differenceFrom} finds no difference. */
  public boolean allClose(WeightCollection other, double rtol, double atol) {
    return differenceFrom(other, rtol, atol) == null;
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (layers == null) {
      throw new InvalidObjectException("Serialized WeightCollection has no layers");
    }
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      if (e.getKey() == null || e.getValue() == null || e.getValue().contains(null)) {
        throw new InvalidObjectException(
            "Serialized WeightCollection has a null layer name or weight array at " + e.getKey());
      }
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("WeightCollection{");
    boolean first = true;
    for (Map.Entry<String, List<Tensor>> e : layers.entrySet()) {
      if (!first) {
        sb.append(", ");
      }
      first = false;
      sb.append(e.getKey()).append('=').append(shapes(e.getValue()));
    }
    return sb.append("; ").append(numFloats()).append(" floats}").toString();
  }
}
