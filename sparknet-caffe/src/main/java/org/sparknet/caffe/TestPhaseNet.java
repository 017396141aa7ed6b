package org.sparknet.caffe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.caffe.FloatBlob;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.IntPointer;
import org.sparknet.api.BatchFeeder;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection.Tensor;
import org.sparknet.caffe.internal.BlobShapes;
import org.sparknet.caffe.internal.InputFeeder;

/**
 * The passes of {@link CaffeNet}'s TEST-phase net: averaged scalar outputs and heap copies of named
 * blobs.
 *
 * <p>Borrows the net: {@link CaffeNet} builds it and closes it. Callers run these methods inside
 * {@link CaffeNet}'s device scope, which sets the thread's Caffe device and frees the temporary
 * pointers made here.
 */
final class TestPhaseNet {
  private final FloatNet net; // borrowed: CaffeNet owns and closes it
  private final String netName;
  private final InputFeeder inputs;
  private final List<String> outputs;

  TestPhaseNet(FloatNet net, String netName, InputFeeder inputs, List<String> outputs) {
    this.net = net;
    this.netName = netName;
    this.inputs = inputs;
    this.outputs = outputs;
  }

  /** The net's output blob names, in Caffe's order. */
  static List<String> outputNames(FloatNet net) {
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
      inputs.feed(net, Phase.TEST, feeder);
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
    inputs.feed(net, Phase.TEST, feeder);
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
