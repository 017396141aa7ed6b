package org.sparknet.api.predict;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.sparknet.api.Net;
import org.sparknet.api.Phase;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * Runs a net's TEST phase over examples in batches of its batch size: {@link #predict} gives each
 * example's row of an output blob, lazily; {@link #evaluate} sums the net's scalar outputs (loss,
 * accuracy) over the examples. A batch's padding rows (see {@link BatchSource}) are never counted
 * or returned. The net is borrowed: whoever built it closes it.
 */
public final class BatchPredictor {
  private final Net net;
  private final InputBlobs blobs;
  private final int testNet;

  /**
   * On test net #0, the one {@link #predict} runs on.
   *
   * @throws IllegalArgumentException when the TEST-phase net has no input blob {@code blobs.data()}
   *     with a batch axis
   */
  public BatchPredictor(Net net, InputBlobs blobs) {
    this(net, blobs, 0);
  }

  /**
   * On test net {@code testNet} ({@link Net#testNetCount()}) for {@link #evaluate}; {@link
   * #predict} always runs test net #0 ({@link Net#forward}).
   *
   * @throws IllegalArgumentException when that net has no input blob {@code blobs.data()} with a
   *     batch axis, or there is no such test net
   */
  public BatchPredictor(Net net, InputBlobs blobs, int testNet) {
    this.net = net;
    this.blobs = blobs;
    this.testNet = testNet;
    Map<String, Shape> inputs = net.testInputShapes(testNet);
    Shape data = inputs.get(blobs.data());
    if (data == null || data.rank() < 1) {
      throw new IllegalArgumentException(
          "The TEST-phase net '"
              + net.name()
              + "'"
              + (net.testNetCount() > 1 ? " (" + net.describeTestNet(testNet) + ")" : "")
              + " has no input blob '"
              + blobs.data()
              + "' with a batch axis; its inputs are "
              + inputs
              + "; name the blob that receives the features");
    }
  }

  /**
   * Each item's values of blob {@code outputBlob}, in order, computed a batch at a time as they are
   * asked for.
   *
   * @throws IllegalArgumentException (when iterating) if the blob does not hold one row per example
   */
  public <T> Iterator<Prediction<T>> predict(ExampleBatches<T> source, String outputBlob) {
    return new Iterator<>() {
      private final ArrayDeque<Prediction<T>> ready = new ArrayDeque<>();

      @Override
      public boolean hasNext() {
        if (ready.isEmpty() && source.hasNext()) {
          runBatch(source, outputBlob, ready);
        }
        return !ready.isEmpty();
      }

      @Override
      public Prediction<T> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return ready.poll();
      }
    };
  }

  private <T> void runBatch(
      ExampleBatches<T> source, String outputBlob, ArrayDeque<Prediction<T>> out) {
    int[] fresh = {0};
    Map<String, NDArray> result =
        net.forward(inputs -> fresh[0] = source.fill(inputs), List.of(outputBlob));
    float[] values;
    try (NDArray a = result.get(outputBlob)) {
      values = a.toArray();
    }
    int batch = net.inputShapes(Phase.TEST).get(blobs.data()).dim(0);
    if (values.length % batch != 0) {
      throw new IllegalArgumentException(
          "Blob '"
              + outputBlob
              + "' has "
              + values.length
              + " values, not a multiple of the batch "
              + batch
              + "; choose an output blob with one row per example");
    }
    int width = values.length / batch;
    List<T> items = source.lastBatch();
    for (int r = 0; r < fresh[0]; r++) {
      float[] row = new float[width];
      System.arraycopy(values, r * width, row, 0, width);
      out.add(new Prediction<>(items.get(r), row));
    }
  }

  /** Sums of the test net's scalar outputs over every example of {@code source}. */
  public OutputSums evaluate(BatchSource source) {
    OutputSums sums = new OutputSums();
    while (source.hasNext()) {
      int[] fresh = {0};
      Map<String, Float> outputs = net.test(testNet, 1, inputs -> fresh[0] = source.fill(inputs));
      sums.addBatch(outputs, fresh[0]);
    }
    return sums;
  }

  /** The data blob's view, or an error naming the blob and the inputs there are. */
  static NDArray dataView(Map<String, NDArray> inputs, String dataBlob) {
    NDArray data = inputs.get(dataBlob);
    if (data == null || data.rank() < 1) {
      throw new IllegalArgumentException(
          "The net has no input blob '"
              + dataBlob
              + "' with a batch axis; its inputs are "
              + inputs.keySet());
    }
    return data;
  }
}
