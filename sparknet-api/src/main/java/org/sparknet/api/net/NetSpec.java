package org.sparknet.api.net;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;

/**
 * A Caffe net built in Java: an ordered list of layers with a name, written as NetParameter
 * prototxt. Each layer reads the previous layer's top unless told otherwise, so a plain stack reads
 * like the net:
 *
 * <pre>{@code
 * NetSpec lenet = NetSpec.named("LeNet")
 *     .add(InputLayer.named("mnist").setShape(1, 28, 28).setBatchSize(64).optTestBatchSize(100)
 *         .optScale(0.00390625))
 *     .add(ConvLayer.named("conv1").setNumOutput(20).setKernel(5))
 *     .add(PoolLayer.max("pool1").setKernel(2).optStride(2))
 *     .add(ConvLayer.named("conv2").setNumOutput(50).setKernel(5))
 *     .add(PoolLayer.max("pool2").setKernel(2).optStride(2))
 *     .add(LinearLayer.named("ip1").setNumOutput(500))
 *     .add(ActivationLayer.relu("relu1"))
 *     .add(LinearLayer.named("ip2").setNumOutput(10))
 *     .add(Accuracy.named("accuracy"))
 *     .add(SoftmaxWithLoss.named("loss"));
 * NetDefinition def = lenet.toNetDefinition(SolverSpec.sgd(0.01).optMomentum(0.9));
 * }</pre>
 *
 * <p>Every {@link #add} infers the shapes of both phases the way Caffe's {@code Reshape} does and
 * rejects, with {@link IllegalArgumentException} naming the layer and the field, what Caffe would
 * abort on: duplicate layer or top names, a bottom no earlier layer produces, a kernel larger than
 * its input, labels that do not match the predictions. {@link #toPrototxt} and {@link
 * #toNetDefinition} also require an input layer and a loss layer. The text then goes through the
 * same checks as any user prototxt when an engine builds it (sparknet-caffe's {@code NetPlan}).
 *
 * <p>{@link #toString()} prints each layer's type, output shape and parameter count.
 */
public final class NetSpec {
  private final String name;
  private final List<LayerSpec<?>> layers = new ArrayList<>();

  private NetSpec(String name) {
    this.name = name;
  }

  public static NetSpec named(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("A net name must not be blank");
    }
    return new NetSpec(name);
  }

  public String name() {
    return name;
  }

  /** The layers in order. */
  public List<LayerSpec<?>> layers() {
    return Collections.unmodifiableList(layers);
  }

  /**
   * Appends a layer after checking it against the layers before it; a layer that fails is not
   * added.
   *
   * @throws IllegalArgumentException naming the layer and field
   */
  public NetSpec add(LayerSpec<?> layer) {
    Objects.requireNonNull(layer, "layer");
    layers.add(layer);
    try {
      analyse(false);
    } catch (RuntimeException e) {
      layers.remove(layers.size() - 1);
      throw e;
    }
    return this;
  }

  /** The net as Caffe NetParameter text. */
  public String toPrototxt() {
    Analysis a = analyse(true);
    PrototxtWriter w = new PrototxtWriter();
    w.string("name", name);
    for (Resolved r : a.layers) {
      r.layer.write(w, r.bottoms, r.tops);
    }
    return w.toString();
  }

  /** The definition an engine builds: this net's text with the solver's, seeded as it says. */
  public NetDefinition toNetDefinition(SolverSpec solver) {
    Objects.requireNonNull(solver, "solver");
    String netText = toPrototxt();
    List<InputLayer> inputs = inputLayers();
    // With several inputs there is no single example shape; the Input layers declare theirs.
    List<Integer> sample = inputs.size() == 1 ? inputs.get(0).sampleShape() : null;
    NetDefinition d = NetDefinition.caffe(solver.toPrototxt(), netText, sample);
    return solver.randomSeed() == null ? d : d.withSeed(solver.randomSeed());
  }

  /** Learnable floats of the whole net (LeNet: 431,080). */
  public long parameterCount() {
    return analyse(false).total;
  }

  /** Learnable floats per layer with any, in net order. */
  public Map<String, Long> parameterCounts() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (Resolved r : analyse(false).layers) {
      if (r.params > 0) {
        out.put(r.layer.name(), r.params);
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /**
   * The shape of a blob in a phase, batch axis first; a scalar (loss, accuracy) is empty.
   *
   * @throws IllegalArgumentException when no layer of that phase produces the blob
   */
  public List<Integer> shapeOf(String blob, Phase phase) {
    Map<String, List<Integer>> shapes = analyse(false).shapes.get(phase);
    List<Integer> s = shapes.get(blob);
    if (s == null) {
      throw new IllegalArgumentException(
          "net '"
              + name
              + "' has no blob '"
              + blob
              + "' in phase "
              + phase
              + "; it has "
              + shapes.keySet());
    }
    return s;
  }

  private List<InputLayer> inputLayers() {
    List<InputLayer> out = new ArrayList<>();
    for (LayerSpec<?> l : layers) {
      if (l instanceof InputLayer in) {
        out.add(in);
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ analysis

  private record Resolved(
      LayerSpec<?> layer,
      List<String> bottoms,
      List<String> tops,
      List<List<Integer>> shapes,
      long params) {}

  private record Analysis(
      List<Resolved> layers, Map<Phase, Map<String, List<Integer>>> shapes, long total) {}

  /** Each layer's bottoms and tops, defaults resolved. */
  private record Wiring(List<List<String>> bottoms, List<List<String>> tops) {}

  /**
   * One phase's net as Caffe would build it: every blob's shape, and per layer its input and output
   * shapes (null for a layer not in the phase).
   */
  private record PhaseShapes(
      Map<String, List<Integer>> blobs,
      List<List<List<Integer>>> inputs,
      List<List<List<Integer>>> outputs) {}

  private IllegalArgumentException fail(String message) {
    return new IllegalArgumentException("net '" + name + "', " + message);
  }

  private IllegalArgumentException failNet(String message) {
    return new IllegalArgumentException("net '" + name + "' " + message);
  }

  /**
   * Checks the layers and infers every shape; with {@code complete}, also that the net can be
   * written (an input and a loss layer).
   */
  private Analysis analyse(boolean complete) {
    Wiring wiring = wire();
    Map<Phase, PhaseShapes> phases = new EnumMap<>(Phase.class);
    Map<Phase, Map<String, List<Integer>>> blobs = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      PhaseShapes p = inferShapes(phase, wiring);
      phases.put(phase, p);
      blobs.put(phase, p.blobs());
    }
    // per layer: the shapes to show (TRAIN unless the layer is TEST-only) and its parameters
    List<Resolved> resolved = new ArrayList<>();
    long total = 0;
    for (int i = 0; i < layers.size(); i++) {
      LayerSpec<?> l = layers.get(i);
      PhaseShapes shown = phases.get(l.includedIn(Phase.TRAIN) ? Phase.TRAIN : Phase.TEST);
      long params = l.parameterCount(shown.inputs().get(i));
      total += params;
      resolved.add(
          new Resolved(
              l, wiring.bottoms().get(i), wiring.tops().get(i), shown.outputs().get(i), params));
    }
    if (complete) {
      checkWritable();
    }
    return new Analysis(List.copyOf(resolved), blobs, total);
  }

  /** Unique names, required fields, and the default bottoms and tops, in the order of adding. */
  private Wiring wire() {
    Map<String, Integer> names = new HashMap<>();
    List<List<String>> bottoms = new ArrayList<>();
    List<List<String>> tops = new ArrayList<>();
    String previous = null;
    String label = null;
    for (int i = 0; i < layers.size(); i++) {
      LayerSpec<?> l = layers.get(i);
      Integer before = names.putIfAbsent(l.name(), i);
      if (before != null) {
        throw failNet(
            "has two layers named '"
                + l.name()
                + "' (#"
                + (before + 1)
                + " and #"
                + (i + 1)
                + "); layer names must be unique (weights are keyed by them)");
      }
      try {
        l.checkComplete();
      } catch (IllegalArgumentException e) {
        throw fail(e.getMessage());
      }
      List<String> b = l.explicitBottoms();
      if (b == null) {
        b =
            switch (l.defaultBottoms()) {
              case NONE -> List.of();
              case PREVIOUS -> List.of(need(l, previous, "a previous layer's top"));
              case PREVIOUS_AND_LABEL ->
                  List.of(
                      need(l, previous, "a previous layer's top (the prediction)"),
                      need(l, label, "a label blob (an InputLayer with a label)"));
            };
      }
      if (l.bottomCount() >= 0 && b.size() != l.bottomCount()) {
        throw fail(l.where() + ": takes " + l.bottomCount() + " bottom(s) but optBottom gave " + b);
      }
      // an input layer's optTop names its data blob, which its default tops already use
      List<String> t =
          l.explicitTop() != null && !(l instanceof InputLayer)
              ? List.of(l.explicitTop())
              : l.defaultTops(b);
      if (!l.inPlace()) {
        for (String top : t) {
          if (b.contains(top)) {
            throw fail(
                l.where()
                    + ": top '"
                    + top
                    + "' is also its bottom; only activations and dropout compute in place");
          }
        }
      }
      bottoms.add(b);
      tops.add(t);
      if (!l.isHead()) {
        previous = t.get(0);
      }
      if (l instanceof InputLayer in && in.labelBlob() != null) {
        label = in.labelBlob();
      }
    }
    return new Wiring(bottoms, tops);
  }

  /** The shapes of one phase, layer by layer, as Caffe's Net::Init would reshape them. */
  private PhaseShapes inferShapes(Phase phase, Wiring wiring) {
    Map<String, List<Integer>> available = new LinkedHashMap<>();
    Map<String, String> producer = new HashMap<>();
    List<List<List<Integer>>> inputs = new ArrayList<>();
    List<List<List<Integer>>> outputs = new ArrayList<>();
    Integer batch = null;
    for (int i = 0; i < layers.size(); i++) {
      LayerSpec<?> l = layers.get(i);
      if (!l.includedIn(phase)) {
        inputs.add(null);
        outputs.add(null);
        continue;
      }
      List<String> bottoms = wiring.bottoms().get(i);
      List<List<Integer>> in = new ArrayList<>();
      for (String b : bottoms) {
        List<Integer> s = available.get(b);
        if (s == null) {
          throw fail(
              l.where()
                  + " in phase "
                  + phase
                  + " reads bottom '"
                  + b
                  + "' that no earlier layer produces; blobs available there: "
                  + available.keySet());
        }
        in.add(s);
      }
      List<List<Integer>> out;
      try {
        out = l.infer(in, bottoms, phase);
      } catch (IllegalArgumentException e) {
        throw fail(e.getMessage() + (phase == Phase.TEST ? " (phase TEST)" : ""));
      }
      if (l instanceof InputLayer input) {
        int n = input.batch(phase);
        if (batch != null && n != batch) {
          throw fail(
              l.where()
                  + ": batch size "
                  + n
                  + " in phase "
                  + phase
                  + " differs from the "
                  + batch
                  + " of an earlier input; every input of a phase needs the same batch size");
        }
        batch = n;
      }
      List<String> tops = wiring.tops().get(i);
      for (int k = 0; k < tops.size(); k++) {
        String top = tops.get(k);
        if (available.containsKey(top) && !bottoms.contains(top)) {
          throw fail(
              l.where()
                  + ": top '"
                  + top
                  + "' is already produced by layer '"
                  + producer.get(top)
                  + "'; give this layer another top with optTop(...)");
        }
        available.put(top, out.get(k));
        producer.put(top, l.name());
      }
      inputs.add(in);
      outputs.add(out);
    }
    return new PhaseShapes(Collections.unmodifiableMap(available), inputs, outputs);
  }

  private void checkWritable() {
    if (inputLayers().isEmpty()) {
      throw failNet(
          "has no input layer: add InputLayer.named(\"data\").setShape(...).setBatchSize(n)"
              + " first");
    }
    for (LayerSpec<?> l : layers) {
      if (l.isLoss() && l.includedIn(Phase.TRAIN)) {
        return;
      }
    }
    throw failNet(
        "has no loss layer in phase TRAIN, so there is nothing to train: add"
            + " SoftmaxWithLoss.named(\"loss\") after the last layer");
  }

  private String need(LayerSpec<?> l, String blob, String what) {
    if (blob == null) {
      throw fail(
          l.where() + " needs " + what + " but none comes before it; add one or call optBottom");
    }
    return blob;
  }

  // ------------------------------------------------------------------ summary

  /** A table: each layer's type, tops with their shapes, and parameter count; then the total. */
  @Override
  public String toString() {
    Analysis a;
    try {
      a = analyse(false);
    } catch (IllegalArgumentException e) {
      return "NetSpec '" + name + "' (invalid: " + e.getMessage() + ")";
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"layer", "type", "top", "shape", "params"});
    for (Resolved r : a.layers) {
      String type = r.layer.type() + (r.layer.phase() == null ? "" : " (" + r.layer.phase() + ")");
      for (int k = 0; k < r.tops.size(); k++) {
        rows.add(
            new String[] {
              k == 0 ? r.layer.name() : "",
              k == 0 ? type : "",
              r.tops.get(k),
              r.shapes.get(k).toString(),
              k == 0 ? String.format(Locale.ROOT, "%,d", r.params) : ""
            });
      }
    }
    rows.add(new String[] {"total", "", "", "", String.format(Locale.ROOT, "%,d", a.total)});
    int[] width = new int[5];
    for (String[] row : rows) {
      for (int c = 0; c < 5; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    StringBuilder sb =
        new StringBuilder("NetSpec '")
            .append(name)
            .append("': ")
            .append(layers.size())
            .append(" layers, ")
            .append(String.format(Locale.ROOT, "%,d", a.total))
            .append(
                " parameters (shapes of the TRAIN phase; TEST-only layers at the test batch)\n");
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int c = 0; c < 4; c++) {
        line.append(String.format(Locale.ROOT, "%-" + (width[c] + 2) + "s", row[c]));
      }
      line.append(String.format(Locale.ROOT, "%" + width[4] + "s", row[4]));
      sb.append(line.toString().stripTrailing()).append('\n');
    }
    return sb.toString();
  }
}
