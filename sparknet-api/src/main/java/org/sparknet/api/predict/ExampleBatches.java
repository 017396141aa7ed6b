package org.sparknet.api.predict;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.sparknet.api.data.FeatureReader;
import org.sparknet.api.data.InputBlobs;
import org.sparknet.ndarray.NDArray;

/**
 * Batches of items read by a {@link FeatureReader}: features into the data blob, labels into the
 * label blob when the net has one, zeros into any other input. A last, partial batch is padded with
 * copies of its last item. {@link #lastBatch()} gives the items of the batch just filled, so that
 * outputs can be paired with them.
 */
public final class ExampleBatches<T> implements BatchSource {
  private final Iterator<T> items;
  private final FeatureReader<T> reader;
  private final InputBlobs blobs;
  private final List<T> batch = new ArrayList<>();
  private float[] features = new float[0];
  private float[] labels = new float[0];

  public ExampleBatches(Iterator<T> items, FeatureReader<T> reader, InputBlobs blobs) {
    this.items = items;
    this.reader = reader;
    this.blobs = blobs;
  }

  @Override
  public boolean hasNext() {
    return items.hasNext();
  }

  @Override
  public int fill(Map<String, NDArray> inputs) {
    NDArray data = BatchPredictor.dataView(inputs, blobs.data());
    int rows = data.shape().dim(0);
    int size = Math.toIntExact(data.size() / rows);
    if (features.length != rows * size) {
      features = new float[rows * size];
      labels = new float[rows];
    }
    batch.clear();
    while (batch.size() < rows && items.hasNext()) {
      T item = items.next();
      reader.read(item, features, batch.size() * size, size);
      labels[batch.size()] = reader.label(item);
      batch.add(item);
    }
    int fresh = batch.size();
    for (int r = fresh; r < rows; r++) {
      System.arraycopy(features, (fresh - 1) * size, features, r * size, size);
      labels[r] = labels[fresh - 1];
    }
    data.copyFrom(features);
    for (Map.Entry<String, NDArray> e : inputs.entrySet()) {
      if (e.getKey().equals(blobs.data())) {
        continue;
      }
      if (e.getKey().equals(blobs.label()) && e.getValue().size() == rows) {
        e.getValue().copyFrom(labels);
      } else {
        e.getValue().fill(0f);
      }
    }
    return fresh;
  }

  /** The items of the batch last filled, in order (padding excluded). */
  public List<T> lastBatch() {
    return batch;
  }
}
