package org.sparknet.api.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.SolverGroup;
import org.sparknet.api.device.GpuSharing;
import org.sparknet.api.device.TaskDevices;
import org.sparknet.api.internal.wire.WorkerLineages;

/**
 * The workers that live in this JVM (an executor, or the driver in local mode) across rounds: one
 * per (trainer, role, partition), built lazily by the first task that needs it and kept until the
 * trainer releases it. Native state never crosses the wire.
 */
public final class WorkerRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerRegistry.class);

  private WorkerRegistry() {}

  /** What a worker's net is for: training, or testing the trainer's weights on validation data. */
  public enum Role {
    TRAIN,
    TEST
  }

  private record Key(String trainerId, Role role, int partition) {}

  /** A worker and whether it was built for the task that asked for it. */
  record Acquired(Worker worker, boolean builtNow) {}

  private static final Map<Key, Worker> WORKERS = new ConcurrentHashMap<>();

  /**
   * Trainers released in this JVM. A task of a failed or cancelled round can still be running when
   * its trainer is closed (Spark does not interrupt the other tasks of an aborted stage): it must
   * not build a net that nobody would close.
   */
  private static final Set<String> RELEASED = ConcurrentHashMap.newKeySet();

  /**
   * Builds hold the read lock; a release takes the write lock, so it waits for builds under way.
   */
  private static final ReentrantReadWriteLock BUILDS = new ReentrantReadWriteLock();

  /**
   * Partition {@code partition}'s training worker for round {@code round} of {@code plan}: the one
   * place where every training task (plain, elastic, all-reduce ring, asynchronous) gets its net
   * and so its devices, with the plan's group size and GPU sharing.
   */
  static Acquired acquireTraining(WorkerPlan plan, int partition, int round) {
    plan.acceptDriverCheck();
    return acquire(
        plan.trainerId(),
        Role.TRAIN,
        partition,
        plan.definitionFor(partition),
        plan.groupSize(),
        plan.gpuSharing(),
        round);
  }

  /**
   * The worker of {@code (trainerId, role, partition)} for the current task: built from {@code
   * definition} (a {@link SolverGroup} of {@code groupSize} solvers when that is above 1) on the
   * devices this task gets ({@link TaskDevices}, GPUs shared as {@code sharing} says) if this JVM
   * has none yet, or moved there when the task got other devices than the worker's net runs on. A
   * training task also closes this JVM's stale training workers of the trainer ({@link
   * #closeStale}).
   *
   * @param round the training round the task belongs to (for a test, the trainer's last round)
   * @throws IllegalStateException when the trainer was released in this JVM
   */
  static Acquired acquire(
      String trainerId,
      Role role,
      int partition,
      NetDefinition definition,
      int groupSize,
      GpuSharing sharing,
      int round) {
    if (role == Role.TRAIN) {
      closeStale(trainerId, partition, round);
    }
    List<String> devices =
        TaskDevices.forTask(
            definition.engine(), definition.device(), partition, groupSize, sharing);
    Key key = new Key(trainerId, role, partition);
    // Claimed inside the map's per-key lock, so that closeStale never takes a worker being claimed.
    Worker w = WORKERS.computeIfPresent(key, (k, v) -> v.claim(round));
    if (w != null) {
      synchronized (w) {
        if (!w.devices().equals(devices)) {
          w.moveTo(build(definition, devices), devices);
        }
      }
      return new Acquired(w, false);
    }
    BUILDS.readLock().lock();
    try {
      if (RELEASED.contains(trainerId)) {
        throw new IllegalStateException(
            "SparkNet trainer "
                + trainerId
                + " was closed: no net is built for this task (partition "
                + partition
                + ", a straggler of a failed or cancelled round)");
      }
      boolean[] built = {false};
      Worker got =
          WORKERS.compute(
              key,
              (k, v) -> {
                if (v != null) {
                  return v.claim(round);
                }
                built[0] = true;
                return new Worker(build(definition, devices), devices, definition.engine())
                    .claim(round);
              });
      return new Acquired(got, built[0]);
    } finally {
      BUILDS.readLock().unlock();
    }
  }

  /**
   * Closes the training workers of {@code trainerId} in this JVM, other than {@code partition}'s,
   * that no task has claimed since round {@code round - 2}: their partitions now train on another
   * executor (Spark moved them after an executor was lost, or to follow a cached block), so they
   * would only hold native memory, and a read of their weights or solver state would be stale. A
   * partition that comes back here later gets a new net, whose solver restarts as it would on the
   * stale one.
   */
  private static void closeStale(String trainerId, int partition, int round) {
    List<Map.Entry<Integer, Worker>> stale = new ArrayList<>();
    for (Key k : WORKERS.keySet()) {
      if (k.trainerId().equals(trainerId) && k.role() == Role.TRAIN && k.partition() != partition) {
        WORKERS.computeIfPresent(
            k,
            (kk, w) -> {
              if (w.claimedRound() < round - 1) {
                stale.add(Map.entry(kk.partition(), w));
                return null;
              }
              return w;
            });
      }
    }
    for (Map.Entry<Integer, Worker> e : stale) {
      Worker w = e.getValue();
      synchronized (w) { // a straggler of an old round may still be training on it
        LOG.info(
            "Closing this JVM's net of partition {}: it last trained round {}, and the partition"
                + " trains elsewhere now",
            e.getKey(),
            w.lastRound());
        w.net().close();
      }
    }
  }

  private static Net build(NetDefinition definition, List<String> devices) {
    return devices.size() > 1
        ? SolverGroup.build(definition, devices)
        : NetProvider.build(definition.withDevice(devices.get(0)));
  }

  /**
   * The training worker of {@code (trainerId, partition)} if this JVM holds the one whose result of
   * the round of {@code taken} the driver took, else null: after an executor loss a partition's net
   * may live on in an executor that no longer trains it, with the weights and solver state of an
   * older round, and a speculative copy leaves a second net that completed the same round.
   */
  static Worker findCurrent(String trainerId, int partition, WorkerLineages taken) {
    int round = taken.round();
    Worker w = WORKERS.get(new Key(trainerId, Role.TRAIN, partition));
    if (w == null) {
      return null;
    }
    synchronized (w) {
      if (w.lastRound() == round && !taken.accepts(partition, w.lineage())) {
        LOG.warn(
            "Partition {}'s net in this JVM trained round {}, but the driver took another's result:"
                + " not read",
            partition,
            round);
        return null;
      }
      if (w.lastRound() != round) {
        LOG.warn(
            "Partition {}'s net in this JVM last trained round {}, not round {}: not read",
            partition,
            w.lastRound(),
            round);
        return null;
      }
      return w;
    }
  }

  /** Closes and forgets every worker of {@code trainerId} in this JVM; returns how many. */
  public static int release(String trainerId) {
    BUILDS.writeLock().lock();
    try {
      RELEASED.add(trainerId); // after the builds under way; none starts from now on
    } finally {
      BUILDS.writeLock().unlock();
    }
    RingCentres.forget(trainerId);
    List<Worker> closing = new ArrayList<>();
    WORKERS
        .entrySet()
        .removeIf(
            e -> {
              if (e.getKey().trainerId().equals(trainerId)) {
                closing.add(e.getValue());
                return true;
              }
              return false;
            });
    RuntimeException first = null;
    for (Worker w : closing) {
      synchronized (w) {
        try {
          w.net().close();
        } catch (RuntimeException e) {
          first = first == null ? e : first;
        }
      }
    }
    if (first != null) {
      throw first;
    }
    return closing.size();
  }

  /** Workers of {@code trainerId} held in this JVM. */
  public static int count(String trainerId) {
    int n = 0;
    for (Key k : WORKERS.keySet()) {
      if (k.trainerId().equals(trainerId)) {
        n++;
      }
    }
    return n;
  }
}
