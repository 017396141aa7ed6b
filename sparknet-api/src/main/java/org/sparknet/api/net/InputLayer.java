package org.sparknet.api.net;

import java.util.ArrayList;
import java.util.List;
import org.sparknet.api.Phase;

/**
 * The net's input: a data blob of [batch] + sample shape and, unless {@link #optWithoutLabel}, a
 * label blob of [batch], fed from Spark. Written as Caffe {@code Input} layers, one per phase when
 * the train and test batch sizes differ (as Caffe's data layers are).
 *
 * <pre>{@code
 * InputLayer.named("mnist").setShape(1, 28, 28).setBatchSize(64).optTestBatchSize(100)
 *     .optScale(0.00390625)
 * }</pre>
 *
 * <p>{@link #optScale} and {@link #optMean} become a {@code transform_param}, which SparkNet
 * applies after feeding a batch, (x - mean) * scale, (as it does for the data layers of model-zoo
 * files); plain Caffe ignores it on an {@code Input} layer.
 */
public final class InputLayer extends LayerSpec<InputLayer> {
  private int[] sample;
  private Integer trainBatch;
  private Integer testBatch;
  private String label = "label";
  private Double scale;
  private double[] mean;

  private InputLayer(String name) {
    super(name, "Input", null);
  }

  public static InputLayer named(String name) {
    return new InputLayer(name);
  }

  /** The shape of one example without the batch axis, for example (1, 28, 28). Required. */
  public InputLayer setShape(int... sampleShape) {
    if (sampleShape == null || sampleShape.length == 0) {
      throw fail("field 'shape' needs at least one dimension");
    }
    for (int d : sampleShape) {
      positive("shape", d);
    }
    this.sample = sampleShape.clone();
    return this;
  }

  /** The batch size of both phases. Required. */
  public InputLayer setBatchSize(int batch) {
    this.trainBatch = positive("batch_size", batch);
    return this;
  }

  /** A different batch size for the TEST phase. */
  public InputLayer optTestBatchSize(int batch) {
    this.testBatch = positive("test batch_size", batch);
    return this;
  }

  /** The label blob's name (default "label"). */
  public InputLayer optLabel(String blob) {
    if (blob == null || blob.isBlank()) {
      throw fail("the label blob needs a name; use optWithoutLabel() for a net without labels");
    }
    this.label = blob;
    return this;
  }

  /** No label blob (a net that only predicts). */
  public InputLayer optWithoutLabel() {
    this.label = null;
    return this;
  }

  /** Multiplies every fed value by {@code factor} (Caffe's transform_param.scale). */
  public InputLayer optScale(double factor) {
    if (!(factor > 0) || Double.isInfinite(factor)) {
      throw fail("field 'scale' must be a positive number but was " + factor);
    }
    this.scale = factor;
    return this;
  }

  /**
   * Subtracts a mean from every fed value before scaling (Caffe's transform_param.mean_value): one
   * value for all channels, or one per channel (the first axis of the sample shape).
   */
  public InputLayer optMean(double... perChannel) {
    if (perChannel == null || perChannel.length == 0) {
      throw fail("field 'mean_value' needs one value, or one per channel");
    }
    for (double m : perChannel) {
      if (!Double.isFinite(m)) {
        throw fail("field 'mean_value' must be finite but has " + m);
      }
    }
    this.mean = perChannel.clone();
    return this;
  }

  /** The data top's name: {@link #optTop}, else "data". */
  public String dataBlob() {
    return explicitTop() == null ? "data" : explicitTop();
  }

  /** The label blob's name, or null without a label. */
  public String labelBlob() {
    return label;
  }

  /** One example's shape, without the batch axis. */
  public List<Integer> sampleShape() {
    checkComplete();
    return shape(sample);
  }

  int batch(Phase p) {
    return p == Phase.TEST && testBatch != null ? testBatch : trainBatch;
  }

  @Override
  DefaultBottoms defaultBottoms() {
    return DefaultBottoms.NONE;
  }

  @Override
  int bottomCount() {
    return 0;
  }

  @Override
  List<String> defaultTops(List<String> resolvedBottoms) {
    return label == null ? List.of(dataBlob()) : List.of(dataBlob(), label);
  }

  @Override
  void checkComplete() {
    required("shape", sample, "setShape(dims...)");
    required("batch_size", trainBatch, "setBatchSize(n)");
    if (explicitBottoms() != null) {
      throw fail("an input layer reads no bottoms; remove optBottom");
    }
    if (mean != null && mean.length != 1 && mean.length != sample[0]) {
      throw fail(
          "field 'mean_value' has "
              + mean.length
              + " values but the data has "
              + sample[0]
              + " channels: give 1 or "
              + sample[0]);
    }
    if (dataBlob().equals(label)) {
      throw fail("the data and label blobs are both named '" + label + "'");
    }
  }

  @Override
  List<List<Integer>> infer(List<List<Integer>> inputs, List<String> names, Phase phase) {
    int n = batch(phase);
    List<Integer> data = new ArrayList<>();
    data.add(n);
    for (int d : sample) {
      data.add(d);
    }
    return label == null ? List.of(List.copyOf(data)) : List.of(List.copyOf(data), List.of(n));
  }

  @Override
  void write(PrototxtWriter w, List<String> resolvedBottoms, List<String> resolvedTops) {
    boolean split = phase() == null && testBatch != null && !testBatch.equals(trainBatch);
    if (!split) {
      block(w, resolvedTops, phase(), batch(phase() == null ? Phase.TRAIN : phase()));
    } else {
      block(w, resolvedTops, Phase.TRAIN, batch(Phase.TRAIN));
      block(w, resolvedTops, Phase.TEST, batch(Phase.TEST));
    }
  }

  private void block(PrototxtWriter w, List<String> tops, Phase phase, int batch) {
    w.open("layer").string("name", name()).string("type", type());
    for (String t : tops) {
      w.string("top", t);
    }
    if (phase != null) {
      w.open("include").bare("phase", phase.name()).close();
    }
    if (scale != null || mean != null) {
      w.open("transform_param");
      if (scale != null) {
        w.number("scale", scale);
      }
      if (mean != null) {
        for (double m : mean) {
          w.number("mean_value", m);
        }
      }
      w.close();
    }
    w.open("input_param").open("shape").bare("dim", batch);
    for (int d : sample) {
      w.bare("dim", d);
    }
    w.close();
    if (label != null) {
      w.open("shape").bare("dim", batch).close();
    }
    w.close().close();
  }

  @Override
  void writeParams(PrototxtWriter w) {
    throw new UnsupportedOperationException("written by write()");
  }
}
