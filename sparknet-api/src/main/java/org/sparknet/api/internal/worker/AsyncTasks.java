package org.sparknet.api.internal.worker;

import java.util.Iterator;
import java.util.List;
import org.sparknet.api.data.DataShard;
import org.sparknet.api.internal.wire.PartitionResult;
import org.sparknet.api.internal.wire.RoundOrders;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.wire.ServerLink;
import org.sparknet.api.internal.wire.WorkerReport;

/**
 * What an asynchronous round's task runs on its executor: pull the current weights from the
 * parameter server, run the granted steps on this partition's worker (the same {@link Worker} as a
 * synchronous round), push the update, and pull again until the server grants no more steps.
 * Downpour pushes {@code w - w_pulled}; asynchronous EASGD pushes {@code d = w - c} (the rule's
 * send) and the worker keeps {@code w - alpha d}. The task returns one report for all its pushes;
 * the weights stay with the server.
 */
public final class AsyncTasks {
  private AsyncTasks() {}

  /** One partition's part of an asynchronous round (an idle result without data). */
  public static Iterator<PartitionResult> train(
      WorkerPlan plan,
      RoundOrders orders,
      ServerLink.Address server,
      int partition,
      Iterator<DataShard> shards) {
    WorkerTasks.TrainStart s = WorkerTasks.startTraining(plan, orders, partition, shards);
    if (s == null) {
      return List.of(PartitionResult.idle(partition)).iterator();
    }
    DataShard shard = s.shard();
    WorkerRegistry.Acquired a = s.acquired();
    Totals totals = new Totals(partition);
    try (ServerLink link = ServerLink.connect(server, partition)) {
      long[] positions = orders.positions().clone();
      boolean first = true;
      float[] pulled = null;
      while (true) {
        ServerLink.Pull pull = link.pull(pulled);
        if (pull.steps() == 0) {
          break;
        }
        pulled = pull.weights();
        RoundOrders o = ordersFor(orders, positions, pull.steps(), first);
        PartitionResult r;
        synchronized (a.worker()) {
          r = a.worker().train(plan, o, partition, shard, a.builtNow() && first, pulled);
        }
        first = false;
        WorkerReport w = r.report();
        totals.add(w);
        if (w.divergence() != null) {
          break;
        }
        float[] update = r.values();
        if (!plan.averaging().workersKeepWeights()) {
          for (int i = 0; i < update.length; i++) {
            update[i] -= pulled[i];
          }
        }
        link.push(pull.version(), update, w.examples(), w.steps(), w.lossSum());
        positions[partition] += w.examples();
      }
    }
    return List.of(new PartitionResult(totals.report(), null, 0)).iterator();
  }

  /** The orders of one pull: the round's, at this partition's position, with the granted steps. */
  private static RoundOrders ordersFor(
      RoundOrders round, long[] positions, int steps, boolean first) {
    return new RoundOrders(
        round.round(),
        null,
        positions.clone(),
        round.weightsToken(),
        first ? round.solverStates() : null,
        first ? round.workerWeights() : null,
        new RoundSteps(steps, 0, round.steps().maxIterations()),
        null,
        null);
  }

  /** The task's report summed over its pushes. */
  private static final class Totals {
    private final int partition;
    private long examples;
    private long steps;
    private double lossSum;
    private long setup;
    private long compute;
    private long extract;
    private boolean restarted;
    private String divergence;
    private String device = "";
    private long lineage;

    Totals(int partition) {
      this.partition = partition;
    }

    void add(WorkerReport w) {
      restarted |= examples == 0 && w.solverRestarted();
      examples += w.examples();
      steps += w.steps();
      lossSum += w.lossSum();
      setup += w.timings().setupMillis();
      compute += w.timings().computeMillis();
      extract += w.timings().extractMillis();
      divergence = divergence != null ? divergence : w.divergence();
      device = w.device();
      lineage = w.lineage();
    }

    WorkerReport report() {
      return new WorkerReport(
          partition,
          examples,
          steps,
          lossSum,
          new WorkerReport.WorkerTimings(setup, compute, extract),
          restarted,
          divergence,
          device,
          lineage);
    }
  }
}
