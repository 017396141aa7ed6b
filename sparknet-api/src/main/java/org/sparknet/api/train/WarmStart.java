package org.sparknet.api.train;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.Phase;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.TaskFailures;
import org.sparknet.api.internal.driver.TrainerState;
import org.sparknet.api.internal.wire.FlatWeights;

/**
 * Before the first round, trains the driver's net for a few steps on a sample of the training data
 * (drawn from every partition in proportion to its size) and hands its weights to the workers: the
 * first rounds of plain averaging then start from weights past the initial, most divergent steps.
 */
final class WarmStart {
  private static final Logger LOG = LoggerFactory.getLogger(WarmStart.class);
  private static final long SALT = 0x5741524dL;

  private WarmStart() {}

  static void run(
      JavaSparkContext sc, TrainerConfig cfg, Net driverNet, PackedData data, TrainerState state) {
    DataShard sample = sample(sc, cfg, driverNet, data);
    long t0 = System.nanoTime();
    FlatWeights.set(driverNet, state.layout(), state.weights());
    float loss =
        driverNet.train(cfg.warmStartSteps(), cfg.inputBlobs().shuffled(sample, cfg.seed(), -1, 0));
    float[] w = FlatWeights.get(driverNet, state.layout());
    String bad =
        FlatWeights.firstNonFinite(w) < 0 ? null : state.layout().toCollection(w).firstNonFinite();
    if (!Float.isFinite(loss) || bad != null) {
      throw new TrainingDivergedException(
          "Warm start diverged on the driver: loss " + loss + (bad == null ? "" : ", " + bad),
          0,
          -1);
    }
    state.replaceWeights(w);
    LOG.info(
        "Warm start: {} steps on {} examples on the driver, loss {}, {} ms",
        cfg.warmStartSteps(),
        sample.count(),
        loss,
        (System.nanoTime() - t0) / 1_000_000);
  }

  /** About warmStartSteps batches of examples, from each partition in its epoch-0 order. */
  private static DataShard sample(
      JavaSparkContext sc, TrainerConfig cfg, Net driverNet, PackedData data) {
    int batch =
        ShardFeeder.batchSize(driverNet.inputShapes(Phase.TRAIN), cfg.dataBlob(), cfg.contBlob());
    long[] counts = data.counts();
    long total = data.total();
    long want = Math.min((long) cfg.warmStartSteps() * batch, total);
    int[] take = new int[counts.length];
    for (int p = 0; p < take.length; p++) {
      take[p] = (int) Math.min(counts[p], (want * counts[p] + total - 1) / total);
    }
    long seed = cfg.seed() ^ SALT;
    sc.setJobDescription("SparkNet warm start sample");
    try {
      List<DataShard> parts =
          data.shards()
              .mapPartitionsWithIndex(
                  (p, it) -> {
                    DataShard s = it.hasNext() ? it.next() : null;
                    if (s == null || s.isEmpty() || take[p] == 0) {
                      return List.<DataShard>of().iterator();
                    }
                    int[] order = ShardFeeder.epochOrder(s.count(), seed, p, 0);
                    return List.of(s.select(p, Arrays.copyOf(order, take[p]))).iterator();
                  },
                  true)
              .collect();
      return DataShard.concat(-1, parts);
    } catch (Exception e) {
      throw TaskFailures.unwrap(e);
    } finally {
      sc.setJobDescription(null);
    }
  }
}
