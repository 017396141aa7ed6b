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
 * </ul>
 */
public final class Averaging implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final Averaging PLAIN = new Averaging(false, 0f);

  private final boolean elastic;
  private final float alpha;

  private Averaging(boolean elastic, float alpha) {
    this.elastic = elastic;
    this.alpha = alpha;
  }

  /** Elastic averaging with moving rate {@code alpha} in [0, 1]. */
  public static Averaging elastic(double alpha) {
    if (!(alpha >= 0 && alpha <= 1)) {
      throw new IllegalArgumentException(
          "Elastic averaging needs 0 <= alpha <= 1 but alpha was " + alpha);
    }
    return new Averaging(true, (float) alpha);
  }

  public boolean isElastic() {
    return elastic;
  }

  /** The moving rate (0 for plain averaging). */
  public float alpha() {
    return alpha;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Averaging a && a.elastic == elastic && a.alpha == alpha;
  }

  @Override
  public int hashCode() {
    return Boolean.hashCode(elastic) * 31 + Float.hashCode(alpha);
  }

  @Override
  public String toString() {
    return elastic ? "elastic(alpha=" + alpha + ")" : "plain";
  }
}
