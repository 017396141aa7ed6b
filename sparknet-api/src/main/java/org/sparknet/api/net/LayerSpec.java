package org.sparknet.api.net;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.sparknet.api.Phase;

/**
 * One layer of a {@link NetSpec}. Subclasses are the layer kinds the builder knows ({@link
 * ConvLayer}, {@link PoolLayer}, ...); each writes itself as a Caffe {@code layer { ... }} block
 * and infers its output shapes the way Caffe's {@code Reshape} does, so that mistakes surface in
 * Java, naming the layer and the field, before Caffe sees the text.
 *
 * <p>Bottoms default to the top of the previous layer (loss and accuracy layers also take the net's
 * label); {@link #optBottom} overrides that. Tops default to the layer's name, or to the bottom for
 * layers that work in place (activations, dropout); {@link #optTop} overrides that.
 *
 * @param <S> the concrete layer type, so that the fluent setters return it
 */
public abstract class LayerSpec<S extends LayerSpec<S>> {
  /** Which blobs a layer reads when no {@link #optBottom} is given. */
  enum DefaultBottoms {
    NONE,
    PREVIOUS,
    PREVIOUS_AND_LABEL
  }

  private final String name;
  private final String type;
  private List<String> bottoms; // null: the default
  private String top; // null: the default
  private Phase phase; // null: both phases

  /** {@code type}: Caffe's layer type, a constant of each kind except activations. */
  LayerSpec(String name, String type, Phase defaultPhase) {
    Objects.requireNonNull(name, "layer name");
    if (name.isBlank() || !name.strip().equals(name)) {
      throw new IllegalArgumentException(
          "A layer name must be non-blank without surrounding spaces, got '" + name + "'");
    }
    this.name = name;
    this.type = type;
    this.phase = defaultPhase;
  }

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  public final String name() {
    return name;
  }

  /** Caffe's layer type, for example "Convolution". */
  public final String type() {
    return type;
  }

  /** Reads these blobs instead of the default (the previous layer's top, and the label). */
  public S optBottom(String... blobs) {
    Objects.requireNonNull(blobs, "blobs");
    if (blobs.length == 0) {
      throw fail("optBottom needs at least one blob name");
    }
    for (String b : blobs) {
      checkBlobName("bottom", b);
    }
    this.bottoms = List.of(blobs);
    return self();
  }

  /** Writes its output to this blob instead of the default (the layer name, or in place). */
  public S optTop(String blob) {
    checkBlobName("top", blob);
    this.top = blob;
    return self();
  }

  /** Only in this phase; null for both (the default, except for {@link Accuracy}). */
  public S optPhase(Phase onlyIn) {
    this.phase = onlyIn;
    return self();
  }

  /** The phase this layer is limited to, or null for both. */
  public final Phase phase() {
    return phase;
  }

  final boolean includedIn(Phase p) {
    return phase == null || phase == p;
  }

  final List<String> explicitBottoms() {
    return bottoms;
  }

  final String explicitTop() {
    return top;
  }

  // ------------------------------------------------------------ hooks for the kinds of layer

  DefaultBottoms defaultBottoms() {
    return DefaultBottoms.PREVIOUS;
  }

  /** Layers whose output is a result (loss, accuracy), not the input of the next layer. */
  boolean isHead() {
    return false;
  }

  boolean isLoss() {
    return false;
  }

  /** Whether the default top is the bottom itself (Caffe computes such layers in place). */
  boolean inPlace() {
    return false;
  }

  /** Bottoms the layer must have, checked before {@link #infer}: -1 for any number. */
  int bottomCount() {
    return 1;
  }

  /** The tops when none was given with {@link #optTop}. */
  List<String> defaultTops(List<String> resolvedBottoms) {
    return List.of(inPlace() ? resolvedBottoms.get(0) : name);
  }

  /** The kernel, stride and pad that {@link WindowedLayer}'s setters fill; null for other kinds. */
  Window window() {
    return null;
  }

  /** Checks required fields; called when the layer is added and before it is written. */
  void checkComplete() {}

  /**
   * Output shapes (batch axis first) for the given input shapes (of the bottoms {@code names}),
   * throwing {@link IllegalArgumentException} via {@link #fail} where Caffe would CHECK-fail.
   */
  abstract List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase);

  /** Learnable floats for these input shapes. */
  long parameterCount(List<List<Integer>> inputs) {
    return 0;
  }

  /** The type-specific part of the layer block (after name, type, bottoms, tops and include). */
  abstract void writeParams(PrototxtWriter w);

  /** The whole layer block, or blocks (an input layer writes one per phase). */
  void write(PrototxtWriter w, List<String> resolvedBottoms, List<String> resolvedTops) {
    w.open("layer").string("name", name).string("type", type());
    for (String b : resolvedBottoms) {
      w.string("bottom", b);
    }
    for (String t : resolvedTops) {
      w.string("top", t);
    }
    if (phase != null) {
      w.open("include").bare("phase", phase.name()).close();
    }
    writeParams(w);
    w.close();
  }

  // ------------------------------------------------------------ helpers

  final String where() {
    return "layer '" + name + "' (" + type() + ")";
  }

  final IllegalArgumentException fail(String message) {
    return new IllegalArgumentException(where() + ": " + message);
  }

  final int positive(String field, int value) {
    if (value <= 0) {
      throw fail("field '" + field + "' must be positive but was " + value);
    }
    return value;
  }

  final int nonNegative(String field, int value) {
    if (value < 0) {
      throw fail("field '" + field + "' must be >= 0 but was " + value);
    }
    return value;
  }

  final double nonNegative(String field, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw fail("field '" + field + "' must be a finite number >= 0 but was " + value);
    }
    return value;
  }

  final void required(String field, Object value, String setter) {
    if (value == null) {
      throw fail("field '" + field + "' is required: call " + setter);
    }
  }

  private void checkBlobName(String what, String blob) {
    if (blob == null || blob.isBlank() || !blob.strip().equals(blob)) {
      throw fail(
          what + " blob names must be non-blank without surrounding spaces, got '" + blob + "'");
    }
  }

  /** A 4-D [N, C, H, W] input, or a message naming the blob and its shape. */
  final List<Integer> image(List<Integer> shape, String bottom) {
    if (shape.size() != 4) {
      throw fail(
          "needs a 4-D input [N, C, H, W] but bottom '"
              + bottom
              + "' has shape "
              + shape
              + "; spatial layers cannot follow a LinearLayer");
    }
    return shape;
  }

  static long product(List<Integer> shape, int from) {
    long p = 1;
    for (int i = from; i < shape.size(); i++) {
      p *= shape.get(i);
    }
    return p;
  }

  static List<Integer> shape(int... dims) {
    List<Integer> s = new ArrayList<>(dims.length);
    for (int d : dims) {
      s.add(d);
    }
    return List.copyOf(s);
  }

  static String dims(int[] hw) {
    return hw[0] == hw[1] ? Integer.toString(hw[0]) : Arrays.toString(hw);
  }
}
