package org.sparknet.api.internal;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.Phase;
import org.sparknet.api.SolverState;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.data.ShardFeeder;
import org.sparknet.ndarray.Shape;

/**
 * The executor side of a round: what one partition's task does. Everything it needs travels in a
 * small {@link Task} (captured by the closure) and the round's broadcast of the weights.
 */
public final class WorkerRound {
  private WorkerRound() {}

  /** The parameters of one round, the same for every partition. */
  public record Task(
      String trainerId,
      NetDefinition definition,
      WeightLayout layout,
      int round,
      int tau,
      double tauSeconds,
      long seed,
      long[] positions,
      String dataBlob,
      String labelBlob,
      String contBlob,
      boolean elastic,
      float alpha,
      long weightsToken,
      int groupSize)
      implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** The definition a worker net is built from: the trainer's, with a per-partition seed. */
  public static NetDefinition workerDefinition(NetDefinition d, int partition) {
    return d.withSeed(d.seed() + 1_000_003L * (partition + 1));
  }

  /**
   * Runs one round on one partition. When {@code solverStates} is given (the first round after a
   * resume), the worker's solver state is restored from its entry before the steps.
   */
  public static Iterator<PartitionResult> train(
      Task t,
      Broadcast<float[]> weights,
      Broadcast<SolverState[]> solverStates,
      int partition,
      Iterator<DataShard> shards) {
    DataShard shard = shards.hasNext() ? shards.next() : null;
    if (shard == null || shard.isEmpty()) {
      return List.of(PartitionResult.empty(partition)).iterator();
    }
    long t0 = System.nanoTime();
    float[] centre = weights.value();
    boolean[] built = new boolean[1];
    ExecutorNets.Slot slot =
        ExecutorNets.get(
            t.trainerId(),
            ExecutorNets.Role.TRAIN,
            partition,
            workerDefinition(t.definition(), partition),
            t.groupSize(),
            built);
    synchronized (slot) {
      Net net = slot.net();
      if (!t.elastic() || slot.initializedToken() != t.weightsToken()) {
        FlatWeights.set(net, t.layout(), centre);
        slot.markInitialized(t.weightsToken());
      }
      boolean restored = false;
      if (solverStates != null) {
        SolverState[] all = solverStates.value();
        if (partition < all.length && all[partition] != null) {
          net.setSolverState(all[partition]);
          restored = true;
        }
      }
      // The solver continues only where this net ran the previous round (or was just restored, or
      // this is round 1). Otherwise this task runs on a new executor (the old one was lost) or on
      // a stale net (a speculative copy, a retry): its momentum and iteration start over.
      boolean restarted =
          net.hasSolverState()
              && !restored
              && slot.lastRound() != t.round() - 1
              && !(built[0] && t.round() == 1);
      long t1 = System.nanoTime();
      ShardFeeder feeder =
          new ShardFeeder(
                  shard, t.dataBlob(), t.labelBlob(), t.seed(), partition, t.positions()[partition])
              .withContBlob(t.contBlob());
      double lossSum;
      long steps;
      if (t.tau() > 0) {
        float loss = net.train(t.tau(), feeder);
        steps = t.tau();
        lossSum = (double) loss * feeder.examplesFed();
      } else {
        long deadline = t1 + (long) (t.tauSeconds() * 1e9);
        double perStepSum = 0;
        steps = 0;
        do {
          perStepSum += net.train(1, feeder);
          steps++;
        } while (System.nanoTime() < deadline && Double.isFinite(perStepSum));
        lossSum = perStepSum / steps * feeder.examplesFed();
      }
      long t2 = System.nanoTime();
      slot.markRound(t.round());
      long examples = feeder.examplesFed();
      float[] w = FlatWeights.get(net, t.layout());
      String divergence = null;
      if (!Double.isFinite(lossSum)) {
        divergence = "loss " + (lossSum / examples);
      } else {
        if (FlatWeights.firstNonFinite(w) >= 0) {
          divergence = "weight " + t.layout().toCollection(w).firstNonFinite();
        }
      }
      float[] values = w;
      double weight = examples;
      if (divergence == null && t.elastic()) {
        // d = w_i - c goes back; the worker keeps w_i - alpha d.
        float[] d = new float[w.length];
        for (int j = 0; j < w.length; j++) {
          d[j] = w[j] - centre[j];
        }
        if (t.alpha() != 0f) {
          float[] pulled = new float[w.length];
          for (int j = 0; j < w.length; j++) {
            pulled[j] = w[j] - t.alpha() * d[j];
          }
          FlatWeights.set(net, t.layout(), pulled);
        }
        values = d;
        weight = 1.0;
      }
      long t3 = System.nanoTime();
      return List.of(
              new PartitionResult(
                  partition,
                  examples,
                  steps,
                  lossSum,
                  divergence == null ? values : null,
                  weight,
                  divergence,
                  (t1 - t0) / 1_000_000,
                  (t2 - t1) / 1_000_000,
                  (t3 - t2) / 1_000_000,
                  restarted))
          .iterator();
    }
  }

  /** The current weights of this partition's worker net, or an empty array if it has none. */
  public static Iterator<float[]> workerWeights(
      String trainerId, WeightLayout layout, int partition) {
    ExecutorNets.Slot slot = ExecutorNets.find(trainerId, ExecutorNets.Role.TRAIN, partition);
    if (slot == null) {
      return List.of(new float[0]).iterator();
    }
    synchronized (slot) {
      return List.of(FlatWeights.get(slot.net(), layout)).iterator();
    }
  }

  /** One partition's solver state (null when its net does not exist here). */
  public record StateResult(int partition, SolverState state) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** The solver state of this partition's worker net, for a checkpoint. */
  public static Iterator<StateResult> solverState(String trainerId, int partition) {
    ExecutorNets.Slot slot = ExecutorNets.find(trainerId, ExecutorNets.Role.TRAIN, partition);
    if (slot == null) {
      return List.of(new StateResult(partition, null)).iterator();
    }
    synchronized (slot) {
      return List.of(new StateResult(partition, slot.net().getSolverState())).iterator();
    }
  }

  /** The test-phase outputs of one partition, summed over its examples. */
  public record TestResult(String[] names, double[] sums, long examples) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Tests the broadcast weights on one validation partition: the whole shard once, in order, in
   * batches of the test net's batch size. Each batch's outputs are weighted by the examples it adds
   * (a last, partial batch is filled by wrapping around and counted for its new examples only).
   */
  public static Iterator<TestResult> test(
      Task t, Broadcast<float[]> weights, int partition, Iterator<DataShard> shards) {
    DataShard shard = shards.hasNext() ? shards.next() : null;
    if (shard == null || shard.isEmpty()) {
      return List.of(new TestResult(new String[0], new double[0], 0)).iterator();
    }
    ExecutorNets.Slot slot =
        ExecutorNets.get(t.trainerId(), ExecutorNets.Role.TEST, partition, t.definition(), null);
    synchronized (slot) {
      Net net = slot.net();
      FlatWeights.set(net, t.layout(), weights.value());
      Shape in = net.inputShapes(Phase.TEST).get(t.dataBlob());
      if (in == null) {
        throw new IllegalArgumentException(
            "The test net has no input blob '"
                + t.dataBlob()
                + "'; its inputs are "
                + net.inputShapes(Phase.TEST).keySet());
      }
      int batch = ShardFeeder.batchSize(net.inputShapes(Phase.TEST), t.dataBlob(), t.contBlob());
      ShardFeeder feeder =
          ShardFeeder.sequential(shard, t.dataBlob(), t.labelBlob()).withContBlob(t.contBlob());
      Map<String, Double> sums = new LinkedHashMap<>();
      int n = shard.count();
      for (int done = 0; done < n; done += batch) {
        int fresh = Math.min(batch, n - done);
        for (Map.Entry<String, Float> e : net.test(1, feeder).entrySet()) {
          sums.merge(e.getKey(), (double) e.getValue() * fresh, Double::sum);
        }
      }
      List<String> names = new ArrayList<>(sums.keySet());
      double[] values = new double[names.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = sums.get(names.get(i));
      }
      return List.of(new TestResult(names.toArray(new String[0]), values, n)).iterator();
    }
  }
}
