package org.sparknet.api.train;

import java.io.Serializable;

/**
 * How the workers' weights are combined after each round.
 *
 * <ul>
 *   <li>{@link #PLAIN}: the new weights are the example-weighted mean of the workers' weights;
 *       every worker starts the next round from them.
 *   <li>{@link #elastic(double)}: elastic averaging SGD (EASGD, Zhang, Choromanska and LeCun 2015).
 *       The driver holds a centre c; after its tau steps each worker i is pulled towards it, {@code
 *       w_i -= alpha (w_i - c)}, and the centre moves by the sum of the pulls, {@code c += alpha
 *       sum_i (w_i - c)}. Worker weights stay on the executors between rounds, and checkpoints hold
 *       them: a resumed run hands each worker its own. {@code alpha = 0} is allowed: the workers
 *       then train independently and the centre never moves (a baseline).
 *   <li>{@link #ALL_REDUCE}: {@link #PLAIN}'s mean, summed by the executors among themselves in a
 *       ring (reduce-scatter, then all-gather) in a Spark barrier stage instead of on the driver:
 *       the bytes through the driver stay one copy of the weights a round, whatever the worker
 *       count. Needs every worker's task running at once (no dynamic allocation, a slot per
 *       worker).
 *   <li>{@link #downpour(int)}: asynchronous (Downpour SGD, Dean et al. 2012, as in SINGA). A
 *       parameter server on the driver holds the weights; each worker pulls them, runs tau steps,
 *       pushes its update {@code w - w_pulled}, which the server adds divided by the worker count
 *       (so that the solver's learning rate means what it means in a synchronous run), and pulls
 *       again, with no barrier between workers. A push made from weights more than {@code
 *       staleness} pushes old is dropped.
 *   <li>{@link #asyncElastic(double, int)}: asynchronous EASGD (as in ShmCaffe): the worker pushes
 *       {@code d = w - c} against the centre it pulled, the server adds {@code alpha d}, the worker
 *       keeps {@code w - alpha d}; the same staleness bound.
 * </ul>
 */
public final class Averaging implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Synchronous modes have no staleness bound. */
  private static final int SYNCHRONOUS = -1;

  /** The staleness bound of {@link #downpour()} and {@link #asyncElastic(double)}. */
  public static final int DEFAULT_STALENESS = 32;

  public static final Averaging PLAIN = new Averaging(false, 0f, false, SYNCHRONOUS);

  /** Plain averaging summed by an all-reduce between the executors (a barrier stage a round). */
  public static final Averaging ALL_REDUCE = new Averaging(false, 0f, true, SYNCHRONOUS);

  private final boolean elastic;
  private final float alpha;
  private final boolean allReduce;
  private final int staleness;

  private Averaging(boolean elastic, float alpha, boolean allReduce, int staleness) {
    this.elastic = elastic;
    this.alpha = alpha;
    this.allReduce = allReduce;
    this.staleness = staleness;
  }

  /** Downpour with the default staleness bound ({@value #DEFAULT_STALENESS} pushes). */
  public static Averaging downpour() {
    return downpour(DEFAULT_STALENESS);
  }

  /**
   * Downpour: asynchronous pushes of each worker's tau-step update to a parameter server on the
   * driver.
   *
   * @param staleness the most pushes by other workers between a worker's pull and its push for the
   *     push to count (0: only pushes from the newest weights count)
   */
  public static Averaging downpour(int staleness) {
    return new Averaging(false, 0f, false, checkStaleness(staleness));
  }

  /** Asynchronous elastic averaging with the default staleness bound. */
  public static Averaging asyncElastic(double alpha) {
    return asyncElastic(alpha, DEFAULT_STALENESS);
  }

  /** Asynchronous elastic averaging: moving rate {@code alpha} in [0, 1], a staleness bound. */
  public static Averaging asyncElastic(double alpha, int staleness) {
    return new Averaging(true, elastic(alpha).alpha, false, checkStaleness(staleness));
  }

  private static int checkStaleness(int staleness) {
    if (staleness < 0) {
      throw new IllegalArgumentException("The staleness bound must be >= 0 but was " + staleness);
    }
    return staleness;
  }

  /** Elastic averaging with moving rate {@code alpha} in [0, 1]. */
  public static Averaging elastic(double alpha) {
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new IllegalArgumentException(
          "Elastic averaging needs 0 <= alpha <= 1 but alpha was " + alpha);
    }
    return new Averaging(true, (float) alpha, false, SYNCHRONOUS);
  }

  /** Whether the workers push to a parameter server without a barrier between them. */
  public boolean isAsync() {
    return staleness != SYNCHRONOUS;
  }

  /** The staleness bound of an asynchronous mode (-1 for a synchronous one). */
  public int staleness() {
    return staleness;
  }

  public boolean isElastic() {
    return elastic;
  }

  /** Whether the executors sum the results among themselves (a barrier stage a round). */
  public boolean isAllReduce() {
    return allReduce;
  }

  /** The moving rate (0 for plain averaging). */
  public float alpha() {
    return alpha;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Averaging a
        && a.elastic == elastic
        && a.alpha == alpha
        && a.allReduce == allReduce
        && a.staleness == staleness;
  }

  @Override
  public int hashCode() {
    return (Boolean.hashCode(elastic) * 31 + Float.hashCode(alpha)) * 31
        + Boolean.hashCode(allReduce)
        + 961 * staleness;
  }

  @Override
  public String toString() {
    if (isAsync()) {
      return (elastic ? "easgd-async(alpha=" + alpha + ", " : "downpour(")
          + "staleness="
          + staleness
          + ")";
    }
    return elastic ? "elastic(alpha=" + alpha + ")" : allReduce ? "allreduce" : "plain";
  }
}
