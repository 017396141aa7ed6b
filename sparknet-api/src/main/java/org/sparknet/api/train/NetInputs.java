package org.sparknet.api.train;

import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.sparknet.api.Net;
import org.sparknet.api.Phase;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.ndarray.Shape;

/**
 * What the net's training inputs ask of the data, read once from the driver's net: the floats per
 * example and the batch size. Packs training and validation data and rejects what cannot train.
 */
final class NetInputs {
  private final int featureSize;
  private final int batch;
  private final String description;

  /**
   * @throws IllegalArgumentException when the net has no data blob with a batch axis
   */
  NetInputs(Net net, TrainerConfig cfg) {
    Map<String, Shape> inputs = net.inputShapes(Phase.TRAIN);
    Shape data = inputs.get(cfg.dataBlob());
    if (data == null || data.rank() < 1 || data.dim(0) <= 0) {
      throw new IllegalArgumentException(
          "Net '"
              + net.name()
              + "' has no input blob '"
              + cfg.dataBlob()
              + "' with a batch axis; its train inputs are "
              + inputs
              + "; set optDataBlob to the blob that receives the features");
    }
    this.featureSize = ShardFeeder.exampleSize(inputs, cfg.dataBlob(), cfg.contBlob());
    this.batch = data.dim(0);
    this.description = "blob '" + cfg.dataBlob() + "' " + data;
  }

  int featureSize() {
    return featureSize;
  }

  /**
   * The training data repartitioned to {@code workers} (left as it is when it already has that many
   * partitions), packed and cached.
   *
   * @param source names the data in errors, e.g. "Column 'features'"
   * @throws IllegalArgumentException when it holds less than one batch, or fewer examples than
   *     workers
   */
  PackedData training(JavaRDD<Example> examples, int workers, String source) {
    JavaRDD<Example> parts =
        examples.getNumPartitions() == workers ? examples : examples.repartition(workers);
    PackedData packed = PackedData.pack(parts, featureSize, source, description);
    long total = packed.total();
    if (total < batch) {
      packed.unpersist();
      throw new IllegalArgumentException(
          (total == 0
                  ? "The training data is empty ("
                      + packed.partitions()
                      + " partitions, 0 examples)"
                  : "The training data has "
                      + total
                      + " examples, fewer than one batch of "
                      + description
                      + "; every step would repeat examples")
              + "; give more data or lower the net's training batch size");
    }
    if (total < workers) {
      // Each worker holds a net (native memory for its blobs) for the executor's life: workers
      // beyond the examples would train on nothing, and by the thousand they exhaust the
      // executors' memory before a round ends.
      packed.unpersist();
      throw new IllegalArgumentException(
          "The training data has "
              + total
              + " examples, fewer than one for each of the "
              + workers
              + " workers; use at most "
              + (total / batch <= 1 ? "1 worker" : total / batch + " workers")
              + " (one batch of "
              + description
              + " each) or give more data");
    }
    return packed;
  }

  /** The validation data in its own partitioning, packed and cached; it must not be empty. */
  PackedData validation(JavaRDD<Example> examples, String source) {
    PackedData packed = PackedData.pack(examples, featureSize, source, description);
    if (packed.total() == 0) {
      packed.unpersist();
      throw new IllegalArgumentException("The validation data is empty (0 examples)");
    }
    return packed;
  }
}
