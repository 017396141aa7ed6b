package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bytedeco.caffe.FloatBlobSharedVector;
import org.bytedeco.caffe.FloatNet;
import org.bytedeco.javacpp.IntPointer;

/**
 * What went non-finite in a training step: an output of the forward pass, checked before the
 * backward pass runs (see {@link CheckedStep}), or a learnable weight after the update.
 *
 * <p>The forward outputs are checked because the backward pass must never see a non-finite
 * activation: a max-pooling window of NaN or -Infinity leaves Caffe's argmax at -1, and the
 * backward pass then adds to the float before its bottom blob, over malloc's chunk header. Every
 * blob that a layer writes is checked, in the order the forward pass first writes it, so that the
 * first one named is where the non-finite values began (they propagate forward).
 *
 * <p>A step pays for the checks with one host read ({@link StepProbe}: every output and weight blob
 * summed into one value); the searches here, a read a blob, run only when that value is not finite.
 */
public final class Divergence {
  /** A blob the forward pass writes and the layers that write it (more than one when in place). */
  private record Output(int blob, String name, List<String> layers) {}

  private final List<Output> outputs;
  private final LearnableParams params;

  private Divergence(List<Output> outputs, LearnableParams params) {
    this.outputs = List.copyOf(outputs);
    this.params = params;
  }

  /** The checks of {@code net}'s forward outputs and of its learnable {@code params}. */
  public static Divergence of(FloatNet net, LearnableParams params) {
    Map<Integer, List<String>> writers = new LinkedHashMap<>();
    for (int i = 0; i < net.layers().size(); i++) {
      String layer = net.layer_names().get(i).getString();
      IntPointer tops = net.top_ids(i);
      int n = net.layers().get(i).layer_param().top_size();
      for (int j = 0; j < n; j++) {
        writers.computeIfAbsent(tops.get(j), k -> new ArrayList<>()).add(layer);
      }
    }
    List<Output> out = new ArrayList<>();
    writers.forEach(
        (blob, layers) ->
            out.add(new Output(blob, net.blob_names().get(blob).getString(), layers)));
    return new Divergence(out, params);
  }

  /** Adds every forward output of {@code net}'s last pass to {@code probe}. */
  public void addOutputs(FloatNet net, StepProbe probe) {
    for (Output o : outputs) {
      probe.add(net.blobs().get(o.blob()));
    }
  }

  /** Adds every learnable weight blob of {@code net} to {@code probe}. */
  public void addWeights(FloatNet net, StepProbe probe) {
    FloatBlobSharedVector blobs = net.params();
    for (LearnableParams.Param p : params.list()) {
      probe.add(blobs.get(p.index()));
    }
  }

  /** The largest blob {@link #addOutputs} or {@link #addWeights} adds, in floats. */
  public int maxCount(FloatNet net) {
    int max = 1;
    for (Output o : outputs) {
      max = Math.max(max, net.blobs().get(o.blob()).count());
    }
    for (LearnableParams.Param p : params.list()) {
      max = Math.max(max, net.params().get(p.index()).count());
    }
    return max;
  }

  /**
   * The first non-finite output of the last forward pass, named with its layer ("output 'conv1' of
   * layer 'conv1'"), or null when every output is finite; a read a blob.
   */
  public String firstNonFiniteOutput(FloatNet net, HostReads reads) {
    for (Output o : outputs) {
      if (!finite(reads.asum(net.blobs().get(o.blob())))) {
        String by =
            o.layers().size() == 1
                ? "layer '" + o.layers().get(0) + "'"
                : "layers '" + String.join("', '", o.layers()) + "' (in place)";
        return "output '" + o.name() + "' of " + by;
      }
    }
    return null;
  }

  /**
   * The first layer whose learnable weights are non-finite ("weights of layer 'ip1'"), or null; a
   * read a blob.
   */
  public String firstNonFiniteWeights(FloatNet net, HostReads reads) {
    FloatBlobSharedVector blobs = net.params();
    for (LearnableParams.Param p : params.list()) {
      if (!finite(reads.asum(blobs.get(p.index())))) {
        return "weights of layer '" + p.layer() + "'";
      }
    }
    return null;
  }

  /**
   * Whether every value of a blob is finite, from the sum of their magnitudes ({@code
   * Blob::asum_data}, BLAS where the data lives: cublas on a GPU, no copy of the blob): a NaN or an
   * infinity makes it non-finite (so does a sum beyond Float.MAX_VALUE, values that have diverged
   * anyway).
   */
  public static boolean finite(float asum) {
    return Float.isFinite(asum);
  }
}
