package org.sparknet.caffe.internal;

import java.nio.FloatBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.FloatPointer;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Phase;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;
import org.sparknet.ndarray.Storage;

/**
 * One batch from a {@link BatchFeeder} into a net's input blobs: the feeder writes into views of
 * the blobs' CPU memory (or of the staging arrays of inputs that crop, mirror or subtract a mean
 * file), valid only during the call; every value is then checked (finite, labels within their
 * classifier's classes, which Caffe would not check before reading past a weight matrix), and the
 * data layer's transform applied as Caffe's DataTransformer does. Callers set the thread's Caffe
 * device and a pointer scope.
 */
public final class InputFeeder {
  private final NetPlan plan;
  private final InputTransforms transforms;

  public InputFeeder(NetPlan plan, InputTransforms transforms) {
    this.plan = plan;
    this.transforms = transforms;
  }

  /** Fills the inputs of {@code net}, built for {@code phase}, with the feeder's next batch. */
  public void feed(FloatNet net, Phase phase, BatchFeeder feeder) {
    feed(net, phase, plan.inputs(phase), feeder);
  }

  /** Fills the inputs of test net {@code testNet} of the plan with the feeder's next batch. */
  public void feedTest(FloatNet net, int testNet, BatchFeeder feeder) {
    feed(net, Phase.TEST, plan.testNet(testNet).inputs(), feeder);
  }

  private void feed(FloatNet net, Phase phase, List<InputBlob> specs, BatchFeeder feeder) {
    Map<String, NDArray> views = new LinkedHashMap<>();
    List<Storage> storages = new ArrayList<>();
    List<FloatPointer> memory = new ArrayList<>();
    try {
      for (InputBlob in : specs) {
        FloatPointer p = target(net, phase, in);
        Shape fed = Shape.of(in.feedShape());
        Storage st =
            Storage.borrow(
                p,
                fed.size(),
                "input blob '" + in.name() + "' of net '" + plan.netName() + "' (" + phase + ")");
        storages.add(st);
        memory.add(p);
        views.put(in.name(), NDArray.wrap(st, fed));
      }
      feeder.fill(Collections.unmodifiableMap(views));
      boolean finite = feeder.writesFiniteValues();
      for (int i = 0; i < specs.size(); i++) {
        finish(net, phase, specs.get(i), memory.get(i), finite);
      }
    } finally {
      for (Storage st : storages) {
        st.close(); // views never outlive the call
      }
    }
  }

  /** Where the feeder writes {@code in}: the blob, or its staging array. */
  private FloatPointer target(FloatNet net, Phase phase, InputBlob in) {
    FloatBlob b = net.blob_by_name(in.name());
    Shape shape = Shape.of(in.shape());
    if (b.count() != shape.size()) {
      throw new IllegalStateException(
          "Input blob '"
              + in.name()
              + "' was reshaped to "
              + BlobShapes.of(b)
              + "; expected "
              + shape);
    }
    // a crop, mirror or mean file: the feeder writes whole examples into staging memory
    return in.staged() ? transforms.staging(phase, in) : b.mutable_cpu_data();
  }

  /** Checks what the feeder wrote into {@code p}, then transforms it into the blob. */
  private void finish(FloatNet net, Phase phase, InputBlob in, FloatPointer p, boolean finite) {
    int fedCount = (int) Shape.of(in.feedShape()).size();
    if (!finite || in.numClasses() > 0) {
      checkValues(in, p.position(0).capacity(fedCount).asBuffer(), phase);
    }
    if (in.staged()) {
      FloatBlob b = net.blob_by_name(in.name());
      FloatPointer dst = b.mutable_cpu_data();
      transforms.apply(phase, in, p, dst.capacity(b.count()).asBuffer());
    } else if (in.hasTransform()) {
      scaleAndMean(in, p, fedCount);
    }
  }

  private void checkValues(InputBlob in, FloatBuffer data, Phase phase) {
    int n = data.capacity();
    // A finite sum of magnitudes means every value is finite: OpenBLAS's vectorised sasum reads a
    // batch many times faster than a Java loop over native memory, which a GPU step would wait
    // for. Labels, and a batch that is not finite, are read value by value to be named.
    if (in.numClasses() == 0 && Float.isFinite(caffe.caffe_cpu_asum_float(n, data))) {
      return;
    }
    for (int i = 0; i < n; i++) {
      float v = data.get(i);
      if (!Float.isFinite(v)) {
        throw new IllegalArgumentException(
            "The feeder wrote "
                + v
                + " at flat index "
                + i
                + " of input blob '"
                + in.name()
                + "' of net '"
                + plan.netName()
                + "' ("
                + phase
                + "); inputs must be finite");
      }
      if (in.numClasses() > 0) {
        checkLabel(in, v, i, phase);
      }
    }
  }

  private void checkLabel(InputBlob in, float v, int i, Phase phase) {
    int label = (int) v;
    boolean ignored = in.ignoreLabel() != null && label == in.ignoreLabel();
    if (!ignored && (label < 0 || label >= in.numClasses())) {
      throw new IllegalArgumentException(
          "The feeder wrote label "
              + v
              + " at index "
              + i
              + " of blob '"
              + in.name()
              + "' of net '"
              + plan.netName()
              + "' ("
              + phase
              + "): the layer reading it (a classifier with "
              + in.numClasses()
              + " outputs, or an Embed with input_dim "
              + in.numClasses()
              + ") needs values in [0, "
              + in.numClasses()
              + ")");
    }
  }

  /** Caffe's DataTransformer for scale and mean_value: x' = (x - mean[c]) * scale, in place. */
  private static void scaleAndMean(InputBlob in, FloatPointer p, int count) {
    float[] mean = in.transform().mean();
    if (mean != null) {
      int[] shape = in.shape();
      int channels = shape.length > 1 ? shape[1] : 1;
      int inner = count / (shape[0] * channels);
      for (int n = 0; n < shape[0]; n++) {
        for (int c = 0; c < channels; c++) {
          float m = mean.length == 1 ? mean[0] : mean[c];
          caffe.caffe_add_scalar_float(
              inner, -m, new FloatPointer(p).position((long) (n * channels + c) * inner));
        }
      }
    }
    if (in.transform().scale() != 1f) {
      caffe.caffe_scal_float(count, in.transform().scale(), p.position(0));
    }
  }
}
