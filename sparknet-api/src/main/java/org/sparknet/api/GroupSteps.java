package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The steps of a {@link SolverGroup}'s members at once: one solver step of every member on its own
 * thread, the batches handed out in member order, each member reseeded per step after {@link
 * #reseed}. Owns the group's {@code k - 1} helper threads (member 0 steps on the caller's thread),
 * stopped by {@link #close()}; the members belong to the group.
 */
final class GroupSteps implements AutoCloseable {
  private final List<Net> members;
  private final ExecutorService threads; // null for a group of one
  private boolean seeded;
  private long taskSeed;
  private long stepsSinceSeed;

  private GroupSteps(List<Net> members, ExecutorService threads) {
    this.members = members;
    this.threads = threads;
  }

  /** Starts the helper threads for {@code members} of the net {@code name} (none for one). */
  static GroupSteps start(List<Net> members, String name) {
    AtomicInteger n = new AtomicInteger();
    int size = members.size();
    ExecutorService pool =
        size == 1
            ? null
            : Executors.newFixedThreadPool(
                size - 1,
                r -> {
                  Thread t = new Thread(r, "sparknet-group-" + name + "-" + n.incrementAndGet());
                  t.setDaemon(true);
                  return t;
                });
    return new GroupSteps(members, pool);
  }

  /**
   * Seeds the steps that follow: member m reseeds on its step's thread before its k-th step since
   * this call, with {@code mix(mix(seed) + k) + m} (mix SplitMix64's finalizer).
   */
  void reseed(long seed) {
    seeded = true;
    taskSeed = seed;
    stepsSinceSeed = 0;
  }

  private long memberSeed(long step, int member) {
    return mix(mix(taskSeed) + step) + member;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** One solver step of every member at once, the batches handed out in member order. */
  float[] stepAll(BatchFeeder feeder) {
    int k = members.size();
    Object turn = new Object();
    int[] next = {0};
    List<Future<Float>> running = new ArrayList<>(k - 1);
    long step = stepsSinceSeed++;
    for (int i = 1; i < k; i++) {
      Net m = members.get(i);
      BatchFeeder inTurn = inTurn(feeder, turn, next, i);
      long seed = memberSeed(step, i);
      running.add(
          threads.submit(
              () -> {
                if (seeded) {
                  m.reseed(seed);
                }
                return m.train(1, inTurn);
              }));
    }
    float[] losses = new float[k];
    Net first = members.get(0);
    try {
      if (seeded) {
        first.reseed(memberSeed(step, 0));
      }
      losses[0] = first.train(1, inTurn(feeder, turn, next, 0));
      for (int i = 1; i < k; i++) {
        losses[i] = await(running.get(i - 1));
      }
    } catch (RuntimeException e) {
      // A member that failed before taking its batch would leave the later ones waiting for
      // their turn: interrupt them so that no helper thread stays blocked.
      running.forEach(f -> f.cancel(true));
      throw e;
    }
    return losses;
  }

  /** A feeder that waits until the members before {@code index} have taken their batch. */
  private static BatchFeeder inTurn(BatchFeeder feeder, Object turn, int[] next, int index) {
    return inputs -> {
      synchronized (turn) {
        while (next[0] != index) {
          try {
            turn.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a batch", e);
          }
        }
        try {
          feeder.fill(inputs);
        } finally {
          next[0]++;
          turn.notifyAll();
        }
      }
    };
  }

  private static float await(Future<Float> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while a group member was stepping", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("A group member failed", e.getCause());
    }
  }

  /** Stops the helper threads, interrupting a step still running on them. */
  @Override
  public void close() {
    if (threads != null) {
      threads.shutdownNow();
    }
  }
}
