package org.sparknet.api.net;

/**
 * A layer with learnable weights and an optional bias ({@link ConvLayer}, {@link LinearLayer}):
 * output count, fillers and learning-rate multipliers.
 *
 * <p>Fillers default to {@link Filler#xavier()} for the weights and a zero constant for the bias,
 * as in Caffe's example nets (Caffe's own default, a zero weight filler, would not train).
 */
public abstract class WeightedLayer<S extends WeightedLayer<S>> extends LayerSpec<S> {
  Integer numOutput;
  Filler weightFiller = Filler.xavier();
  Filler biasFiller = Filler.constant(0);
  double[] lrMult; // null: Caffe's default (1, 1)
  boolean biasTerm = true;

  WeightedLayer(String name, String type) {
    super(name, type, null);
  }

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  /** Number of outputs (channels, or units). Required. */
  public S setNumOutput(int n) {
    this.numOutput = positive("num_output", n);
    return self();
  }

  public S optWeightFiller(Filler filler) {
    this.weightFiller = java.util.Objects.requireNonNull(filler, "filler");
    return self();
  }

  public S optBiasFiller(Filler filler) {
    this.biasFiller = java.util.Objects.requireNonNull(filler, "filler");
    return self();
  }

  /** Learning-rate multipliers of the weights and the bias (Caffe's example nets use 1 and 2). */
  public S optLrMult(double weights, double bias) {
    nonNegative("lr_mult", weights);
    nonNegative("lr_mult", bias);
    this.lrMult = new double[] {weights, bias};
    return self();
  }

  /** Without a bias (default: with). */
  public S optBiasTerm(boolean withBias) {
    this.biasTerm = withBias;
    return self();
  }

  @Override
  void checkComplete() {
    required("num_output", numOutput, "setNumOutput(n)");
  }

  /** The name of the layer's own parameter block, e.g. {@code convolution_param}. */
  abstract String paramBlock();

  /** Fields of the parameter block between bias_term and the fillers; none by default. */
  void writeShapeFields(PrototxtWriter w) {}

  /**
   * The param { lr_mult } blocks, one per learnable blob, then the parameter block: num_output,
   * bias_term, the kind's own fields and the fillers.
   */
  @Override
  final void writeParams(PrototxtWriter w) {
    if (lrMult != null) {
      w.open("param").number("lr_mult", lrMult[0]).close();
      if (biasTerm) {
        w.open("param").number("lr_mult", lrMult[1]).close();
      }
    }
    w.open(paramBlock()).bare("num_output", numOutput);
    if (!biasTerm) {
      w.bare("bias_term", "false");
    }
    writeShapeFields(w);
    weightFiller.write(w, "weight_filler");
    if (biasTerm) {
      biasFiller.write(w, "bias_filler");
    }
    w.close();
  }

  final long biasCount() {
    return biasTerm ? numOutput : 0;
  }
}
