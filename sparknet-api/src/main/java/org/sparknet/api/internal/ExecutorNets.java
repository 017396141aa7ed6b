package org.sparknet.api.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.sparknet.api.Net;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.train.SolverGroup;

/**
 * The nets that live in this JVM (an executor, or the driver in local mode) across rounds: one per
 * (trainer, role, partition), built lazily through {@link NetProvider#build} by the first task that
 * needs it and kept until the trainer releases it. The native state never crosses the wire; the
 * solver state (momentum history, iteration) stays with the net between rounds.
 *
 * <p>A net is used by one task at a time: callers synchronise on its {@link Slot}.
 */
public final class ExecutorNets {
  private ExecutorNets() {}

  /** What a net is held for: training, or testing the shared model on validation data. */
  public enum Role {
    TRAIN,
    TEST
  }

  private record Key(String trainerId, Role role, int partition) {}

  /** A net and the trainer's bookkeeping about it. Synchronise on the slot while using the net. */
  public static final class Slot {
    private final Net net;
    private long initializedToken = -1;
    private int lastRound = -1;
    private final long buildMillis;

    private Slot(Net net, long buildMillis) {
      this.net = net;
      this.buildMillis = buildMillis;
    }

    public Net net() {
      return net;
    }

    /**
     * The token of the trainer's weights that this net was last set to (-1: never). The trainer
     * changes the token when its weights are replaced from outside the loop (setWeights, warm
     * start, resume), so that elastic workers restart from them.
     */
    public long initializedToken() {
      return initializedToken;
    }

    public void markInitialized(long token) {
      initializedToken = token;
    }

    /**
     * The last training round this net completed (-1: none). A round's task continues the solver
     * (momentum, iteration) only on the net that ran the round before.
     */
    public int lastRound() {
      return lastRound;
    }

    public void markRound(int round) {
      lastRound = round;
    }

    /** Time it took to build the net (reported by the first round that used it). */
    public long buildMillis() {
      return buildMillis;
    }
  }

  private static final Map<Key, Slot> NETS = new ConcurrentHashMap<>();

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
   * The net of {@code (trainerId, role, partition)}, built from {@code definition} if this JVM has
   * none yet. Returns whether it was built now through {@code built[0]} when given.
   */
  public static Slot get(
      String trainerId, Role role, int partition, NetDefinition definition, boolean[] built) {
    return get(trainerId, role, partition, definition, 1, built);
  }

  /**
   * Like {@link #get(String, Role, int, NetDefinition, boolean[])}, but a training net of {@code
   * groupSize > 1} is a {@link SolverGroup} of that many solvers.
   */
  public static Slot get(
      String trainerId,
      Role role,
      int partition,
      NetDefinition definition,
      int groupSize,
      boolean[] built) {
    Key key = new Key(trainerId, role, partition);
    Slot s = NETS.get(key);
    if (s != null) {
      return s;
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
      return build(key, definition, groupSize, built);
    } finally {
      BUILDS.readLock().unlock();
    }
  }

  private static Slot build(Key key, NetDefinition definition, int groupSize, boolean[] built) {
    return NETS.computeIfAbsent(
        key,
        k -> {
          long t0 = System.nanoTime();
          Net net =
              groupSize > 1
                  ? SolverGroup.build(definition, groupSize)
                  : NetProvider.build(definition);
          if (built != null) {
            built[0] = true;
          }
          return new Slot(net, (System.nanoTime() - t0) / 1_000_000);
        });
  }

  /** Closes and forgets every net of {@code trainerId} in this JVM; returns how many. */
  public static int release(String trainerId) {
    BUILDS.writeLock().lock();
    try {
      RELEASED.add(trainerId); // after the builds under way; none starts from now on
    } finally {
      BUILDS.writeLock().unlock();
    }
    List<Slot> closing = new ArrayList<>();
    NETS.entrySet()
        .removeIf(
            e -> {
              if (e.getKey().trainerId().equals(trainerId)) {
                closing.add(e.getValue());
                return true;
              }
              return false;
            });
    RuntimeException first = null;
    for (Slot s : closing) {
      synchronized (s) {
        try {
          s.net.close();
        } catch (RuntimeException e) {
          if (first == null) {
            first = e;
          }
        }
      }
    }
    if (first != null) {
      throw first;
    }
    return closing.size();
  }

  /** The net of {@code (trainerId, role, partition)} if this JVM holds one, else null. */
  public static Slot find(String trainerId, Role role, int partition) {
    return NETS.get(new Key(trainerId, role, partition));
  }

  /** Nets of {@code trainerId} held in this JVM. */
  public static int count(String trainerId) {
    int n = 0;
    for (Key k : NETS.keySet()) {
      if (k.trainerId().equals(trainerId)) {
        n++;
      }
    }
    return n;
  }
}
