package org.sparknet.api.internal.worker;

/**
 * The seed of one partition's steps in one round, from which an engine seeds its random generators
 * (Caffe's Dropout masks; random crops and mirrors) on the task's thread before the steps:
 *
 * <pre>
 *   seed(s, r, p) = mix(mix(mix(s) + r) + p)
 * </pre>
 *
 * with s the trainer's seed, r the round (1-based), p the partition, and mix SplitMix64's finalizer
 * (Steele, Lea and Flood 2014). Caffe keeps its generator per thread and Spark runs a partition on
 * whichever task thread it has, so seeding per task is what makes a round repeat; and since the
 * seed depends on nothing but (s, r, p), a run resumed at round r draws what an uninterrupted one
 * does. A group of solvers ({@code SolverGroup}) reseeds each member on its own thread before each
 * step from this seed, the step since and the member.
 */
public final class TaskSeeds {
  private TaskSeeds() {}

  /** The seed of partition {@code partition}'s steps in round {@code round}. */
  public static long of(long seed, int round, int partition) {
    return mix(mix(mix(seed) + round) + partition);
  }

  /** SplitMix64's finalizer: a bijection of 64-bit values that spreads every input bit. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
