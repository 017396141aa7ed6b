package org.sparknet.api.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.Phase;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.data.FeatureReader;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.api.predict.BatchPredictor;
import org.sparknet.api.predict.ExampleBatches;
import org.sparknet.api.predict.Prediction;

/**
 * Batched inference on this JVM for a {@link Model} ({@link Model#newPredictor()}): it owns one net
 * of the model, built with the model's weights, and frees it on {@link #close()} (idempotent; any
 * use after it throws {@link IllegalStateException}). Examples go through the net's TEST phase in
 * batches of its batch size; the last batch is padded and the padding never returned. Not for
 * several threads at once: open one predictor per thread.
 */
public final class Predictor implements AutoCloseable {
  private final Net net;
  private final String name;
  private final InputBlobs blobs;
  private final BatchPredictor batches;
  private final String scoresBlob;
  private boolean closed;

  Predictor(NetDefinition definition, WeightCollection weights) {
    NetProvider provider = NetProvider.forEngine(definition.engine());
    net = provider.create(definition);
    name = net.name();
    try {
      net.setWeights(weights);
      // Nets whose features blob is not called "data" get their first input.
      Set<String> inputs = net.inputShapes(Phase.TEST).keySet();
      String data = inputs.contains("data") ? "data" : inputs.iterator().next();
      blobs = new InputBlobs(data, "label", "cont");
      batches = new BatchPredictor(net, blobs);
      scoresBlob = scoresBlob(provider, definition);
    } catch (RuntimeException e) {
      net.close();
      throw e;
    }
  }

  private static String scoresBlob(NetProvider provider, NetDefinition definition) {
    try {
      return provider.defaultScoresBlob(definition);
    } catch (UnsupportedOperationException e) {
      return null;
    }
  }

  /**
   * The scores blob's row of each example (for Caffe, the bottom of the softmax, accuracy or
   * classification loss layer: the class scores), in order.
   *
   * @throws IllegalArgumentException when an example's size is not the data blob's, or the engine
   *     cannot tell the scores blob (name one with {@link #predict(float[][], String)})
   */
  public float[][] predict(float[][] examples) {
    if (scoresBlob == null) {
      throw new IllegalArgumentException(
          "The net has no scores blob the engine can find; name the blob: predict(examples, blob)");
    }
    return predict(examples, scoresBlob);
  }

  /** Blob {@code blob}'s row of each example, in order. */
  public float[][] predict(float[][] examples, String blob) {
    List<float[]> rows = new ArrayList<>(examples.length);
    predict(Arrays.asList(examples).iterator(), Predictor::copyExample, blob)
        .forEachRemaining(p -> rows.add(p.values()));
    return rows.toArray(new float[0][]);
  }

  /**
   * Each item's row of blob {@code blob}, lazily, a batch at a time as they are asked for; {@code
   * reader} copies an item's features into the net's data blob (and gives its label, for nets that
   * read one).
   */
  public <T> Iterator<Prediction<T>> predict(
      Iterator<T> items, FeatureReader<T> reader, String blob) {
    checkOpen();
    Iterator<Prediction<T>> it = batches.predict(new ExampleBatches<>(items, reader, blobs), blob);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        checkOpen();
        return it.hasNext();
      }

      @Override
      public Prediction<T> next() {
        checkOpen();
        return it.next();
      }
    };
  }

  /** The blob {@link #predict(float[][])} reads; null when the engine cannot tell. */
  public String scoresBlob() {
    return scoresBlob;
  }

  private static void copyExample(float[] x, float[] dest, int offset, int size) {
    if (x.length != size) {
      throw new IllegalArgumentException(
          "The net's data blob takes "
              + size
              + " floats per example but an example has "
              + x.length
              + "; fix the features or the net's input shape");
    }
    System.arraycopy(x, 0, dest, offset, size);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("Predictor of net '" + name + "' is closed");
    }
  }

  /** Frees the net; idempotent. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      net.close();
    }
  }
}
