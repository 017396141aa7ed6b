package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatLayerSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.IntPointer;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.ndarray.Storage;

/**
 * The blobs a net learns, in net order, keyed by layer name as a {@link WeightCollection} is: the
 * parameters a layer owns (a shared parameter belongs to its first layer), or the solver's history
 * blobs laid out over them ({@link #historySlots}). Reads, writes and views go through the blob
 * vector given to each call, so one description serves the weights and the history.
 */
public final class LearnableParams {
  /** One blob: its layer, its index in the blob vector, its shape. */
  public record Param(String layer, int index, Shape shape) {}

  private final List<Param> params;
  private final String netName;

  private LearnableParams(List<Param> params, String netName) {
    this.params = List.copyOf(params);
    this.netName = netName;
  }

  /** The parameters {@code net} owns, from Caffe's param_owners (-1: owned by this layer). */
  public static LearnableParams of(FloatNet net, String netName) {
    List<Param> out = new ArrayList<>();
    FloatLayerSharedVector layers = net.layers();
    FloatBlobSharedVector all = net.params();
    IntPointer owners = net.param_owners();
    int k = 0;
    for (long i = 0; i < layers.size(); i++) {
      String name = net.layer_names().get(i).getString();
      long nb = layers.get(i).blobs().size();
      for (long j = 0; j < nb; j++, k++) {
        if (owners.get(k) == -1) {
          out.add(new Param(name, k, BlobShapes.of(all.get(k))));
        }
      }
    }
    return new LearnableParams(out, netName);
  }

  public List<Param> list() {
    return params;
  }

  /** Parameters in all, over every learnable layer. */
  public long total() {
    return params.stream().mapToLong(p -> p.shape().size()).sum();
  }

  /** One line a layer, its name and parameter count, in net order (for a net's summary). */
  public String sizesByLayer() {
    Map<String, Long> perLayer = new LinkedHashMap<>();
    for (Param p : params) {
      perLayer.merge(p.layer(), p.shape().size(), Long::sum);
    }
    StringBuilder sb = new StringBuilder();
    perLayer.forEach(
        (layer, n) -> sb.append(String.format(Locale.ROOT, "  %-12s %,12d%n", layer, n)));
    return sb.toString();
  }

  /**
   * The slots of a solver history of {@code size} blobs: one per parameter for SGD's momentum, k
   * per parameter for solvers that keep k arrays (AdaDelta, Adam), keyed {@code layer}, {@code
   * layer#1}, ... in the order Caffe stores them.
   */
  public LearnableParams historySlots(long size) {
    List<Param> slots = new ArrayList<>();
    int n = params.size();
    for (int k = 0; k < size; k++) {
      Param p = params.get(k % n);
      int slot = k / n;
      slots.add(new Param(slot == 0 ? p.layer() : p.layer() + "#" + slot, k, p.shape()));
    }
    return new LearnableParams(slots, netName);
  }

  /** A heap copy of these blobs of {@code blobs}. */
  public WeightCollection read(FloatBlobSharedVector blobs) {
    Map<String, List<Tensor>> layers = new LinkedHashMap<>();
    for (Param p : params) {
      FloatBlob b = blobs.get(p.index());
      float[] data = new float[b.count()];
      b.cpu_data().get(data);
      layers.computeIfAbsent(p.layer(), k -> new ArrayList<>()).add(new Tensor(p.shape(), data));
    }
    WeightCollection w = new WeightCollection();
    layers.forEach(w::put);
    return w;
  }

  /** Copies {@code values} into these blobs of {@code blobs}; checked first with {@link #check}. */
  public void write(FloatBlobSharedVector blobs, WeightCollection values, String what) {
    check(values, what);
    Map<String, Integer> next = new LinkedHashMap<>();
    for (Param p : params) {
      int j = next.merge(p.layer(), 1, Integer::sum) - 1;
      blobs.get(p.index()).mutable_cpu_data().put(values.get(p.layer()).get(j).data());
    }
  }

  /**
   * Calls {@code action} with views of these blobs' CPU memory (mutable: on a GPU the next step
   * copies them up), invalidated when it returns.
   */
  public void withViews(FloatBlobSharedVector blobs, Consumer<List<NDArray>> action) {
    List<Storage> storages = new ArrayList<>();
    try {
      List<NDArray> views = new ArrayList<>(params.size());
      for (Param p : params) {
        Storage st =
            Storage.borrow(
                blobs.get(p.index()).mutable_cpu_data(),
                p.shape().size(),
                "weights of layer '" + p.layer() + "' of net '" + netName + "'");
        storages.add(st);
        views.add(NDArray.wrap(st, p.shape()));
      }
      action.accept(Collections.unmodifiableList(views));
    } finally {
      for (Storage st : storages) {
        st.close(); // views never outlive the call
      }
    }
  }

  /** Rejects a collection unlike these blobs, before anything is written. */
  public void check(WeightCollection given, String what) {
    Map<String, List<Shape>> shapes = new LinkedHashMap<>();
    for (Param p : params) {
      shapes.computeIfAbsent(p.layer(), k -> new ArrayList<>()).add(p.shape());
    }
    if (sameStructure(given, shapes)) {
      return;
    }
    // Only on error: a skeleton of the expected structure, so the message lists every difference.
    Map<Long, float[]> zeros = new LinkedHashMap<>();
    WeightCollection skeleton = new WeightCollection();
    shapes.forEach(
        (layer, list) -> {
          List<Tensor> ts = new ArrayList<>();
          for (Shape s : list) {
            ts.add(new Tensor(s, zeros.computeIfAbsent(s.size(), n -> new float[(int) (long) n])));
          }
          skeleton.put(layer, ts);
        });
    throw new IllegalArgumentException(
        "Cannot set the "
            + what
            + "weights of net '"
            + netName
            + "': "
            + skeleton.structureDifference(given)
            + "; nothing was changed");
  }

  private static boolean sameStructure(WeightCollection given, Map<String, List<Shape>> shapes) {
    if (!given.layerNames().equals(List.copyOf(shapes.keySet()))) {
      return false;
    }
    for (Map.Entry<String, List<Shape>> e : shapes.entrySet()) {
      List<Tensor> ts = given.get(e.getKey());
      if (ts.size() != e.getValue().size()) {
        return false;
      }
      for (int i = 0; i < ts.size(); i++) {
        if (!ts.get(i).shape().equals(e.getValue().get(i))) {
          return false;
        }
      }
    }
    return true;
  }
}
