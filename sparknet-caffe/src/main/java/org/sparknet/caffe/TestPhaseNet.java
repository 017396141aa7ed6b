package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.caffe.NetParameter;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.PointerScope;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.BlobShapes;
import org.sparknet.caffe.internal.CaffeRuntime;
import org.sparknet.caffe.internal.InputBlob;
import org.sparknet.caffe.internal.InputFeeder;
import org.sparknet.caffe.internal.TestNetPlan;
import org.sparknet.ndarray.Shape;

/**
 * The passes of one of {@link CaffeNet}'s test nets: averaged scalar outputs and heap copies of
 * named blobs.
 *
 * <p>Borrows the net: {@link CaffeNet} builds it ({@link #build}) and closes it. Callers run these
 * methods inside {@link CaffeNet}'s device scope, which sets the thread's Caffe device and frees
 * the temporary pointers made here.
 */
final class TestPhaseNet {
  private final FloatNet net; // borrowed: CaffeNet owns and closes it
  private final int index;
  private final String netName;
  private final InputFeeder inputs;
  private final List<String> outputs;

  TestPhaseNet(FloatNet net, int index, String netName, InputFeeder inputs) {
    this.net = net;
    this.index = index;
    this.netName = netName;
    this.inputs = inputs;
    try (PointerScope scope = new PointerScope()) {
      this.outputs = outputNames(net);
    }
  }

  /**
   * Builds the test net of {@code plan}, detached from {@code scope} (the caller owns it), with the
   * trained layers of {@code train}.
   */
  static FloatNet build(TestNetPlan plan, FloatNet train, PointerScope scope) {
    NetParameter p = new NetParameter();
    CaffeRuntime.readText(plan.text(), p, "net definition (" + plan.describe() + ")");
    FloatNet t = new FloatNet(p);
    t.retainReference();
    scope.detach(t);
    t.ShareTrainedLayersWith(train);
    return t;
  }

  /** Checks that Caffe shaped each planned input blob of {@code net} as planned. */
  static void checkInputs(FloatNet net, List<InputBlob> planned) {
    for (InputBlob in : planned) {
      Shape actual = BlobShapes.of(net.blob_by_name(in.name()));
      if (!actual.equals(Shape.of(in.shape()))) {
        throw new IllegalStateException(
            String.format(
                "Input blob '%s' has shape %s, planned %s",
                in.name(), actual, Shape.of(in.shape())));
      }
    }
  }

  /** The shapes a feeder writes into {@code planned}, by blob name (uncropped examples). */
  static Map<String, Shape> feedShapes(List<InputBlob> planned) {
    Map<String, Shape> out = new LinkedHashMap<>();
    for (InputBlob in : planned) {
      out.put(in.name(), Shape.of(in.feedShape()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** The net's output blob names, in Caffe's order. */
  private static List<String> outputNames(FloatNet net) {
    List<String> out = new ArrayList<>();
    IntPointer idx = net.output_blob_indices();
    for (int i = 0; i < net.num_outputs(); i++) {
      out.add(net.blob_names().get(idx.get(i)).getString());
    }
    return List.copyOf(out);
  }

  /** Mean over {@code numSteps} batches of each scalar output (non-scalar outputs are skipped). */
  Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    Map<String, Double> sums = new LinkedHashMap<>();
    for (int i = 0; i < numSteps; i++) {
      inputs.feedTest(net, index, feeder);
      net.Forward();
      for (String name : outputs) {
        FloatBlob b = net.blob_by_name(name);
        if (b.count() == 1) {
          sums.merge(name, (double) b.cpu_data().get(0), Double::sum);
        }
      }
    }
    Map<String, Float> out = new LinkedHashMap<>();
    sums.forEach((k, v) -> out.put(k, (float) (v / numSteps)));
    return out;
  }

  /**
   * One forward pass on a batch from {@code feeder}; heap copies of {@code blobs}, because the
   * caller's device scope frees native memory allocated within it.
   */
  Map<String, Tensor> forward(BatchFeeder feeder, List<String> blobs) {
    checkBlobsExist(blobs);
    inputs.feedTest(net, index, feeder);
    net.Forward();
    Map<String, Tensor> out = new LinkedHashMap<>();
    for (String name : blobs) {
      FloatBlob b = net.blob_by_name(name);
      float[] data = new float[b.count()];
      b.cpu_data().get(data);
      out.put(name, new Tensor(BlobShapes.of(b), data));
    }
    return out;
  }

  private void checkBlobsExist(List<String> blobs) {
    for (String name : blobs) {
      if (!net.has_blob(name)) {
        List<String> names = new ArrayList<>();
        for (long i = 0; i < net.blob_names().size(); i++) {
          names.add(net.blob_names().get(i).getString());
        }
        throw new IllegalArgumentException(
            String.format(
                "Net '%s' (TEST phase) has no blob '%s'; it has %s", netName, name, names));
      }
    }
  }
}
