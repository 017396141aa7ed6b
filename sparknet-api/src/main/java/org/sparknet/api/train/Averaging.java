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
 * </ul>
 */
public final class Averaging implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Averaging PLAIN = new Averaging(false, 0f, false);

  /** Plain averaging summed by an all-reduce between the executors (a barrier stage a round). */
  public static final Averaging ALL_REDUCE = new Averaging(false, 0f, true);

  private final boolean elastic;
  private final float alpha;
  private final boolean allReduce;

  private Averaging(boolean elastic, float alpha, boolean allReduce) {
    this.elastic = elastic;
    this.alpha = alpha;
    this.allReduce = allReduce;
  }

  /** Elastic averaging with moving rate {@code alpha} in [0, 1]. */
  public static Averaging elastic(double alpha) {
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new IllegalArgumentException(
          "Elastic averaging needs 0 <= alpha <= 1 but alpha was " + alpha);
    }
    return new Averaging(true, (float) alpha, false);
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
        && a.allReduce == allReduce;
  }

  @Override
  public int hashCode() {
    return (Boolean.hashCode(elastic) * 31 + Float.hashCode(alpha)) * 31
        + Boolean.hashCode(allReduce);
  }

  @Override
  public String toString() {
    return elastic ? "elastic(alpha=" + alpha + ")" : allReduce ? "allreduce" : "plain";
  }
}
