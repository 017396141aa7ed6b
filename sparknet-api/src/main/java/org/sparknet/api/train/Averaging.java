package org.sparknet.api.train;

import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

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
 *
 * <p>The command line, the Spark ML stages and the trainer all describe a run's mode with this one
 * value: its {@link Mode} is read from the mode's name by {@link Mode#parse} alone, and the trainer
 * maps the value to the rule that combines the results and the rounds that run it in one table.
 */
public final class Averaging implements Serializable {
  private static final long serialVersionUID = 2L;

  /** Synchronous modes have no staleness bound. */
  private static final int SYNCHRONOUS = -1;

  /** The staleness bound of {@link #downpour()} and {@link #asyncElastic(double)}. */
  public static final int DEFAULT_STALENESS = 32;

  public static final Averaging PLAIN = new Averaging(Mode.PLAIN, 0f, SYNCHRONOUS);

  /** Plain averaging summed by an all-reduce between the executors (a barrier stage a round). */
  public static final Averaging ALL_REDUCE = new Averaging(Mode.ALL_REDUCE, 0f, SYNCHRONOUS);

  /** The averaging modes by the name the command line and the Spark ML stages give them. */
  public enum Mode {
    PLAIN("plain", false, false),
    EASGD("easgd", true, false),
    ALL_REDUCE("allreduce", false, false),
    DOWNPOUR("downpour", false, true),
    EASGD_ASYNC("easgd-async", true, true);

    private final String label;
    private final boolean elastic;
    private final boolean async;

    Mode(String label, boolean elastic, boolean async) {
      this.label = label;
      this.elastic = elastic;
      this.async = async;
    }

    /** The mode's name: "plain", "easgd", "allreduce", "downpour" or "easgd-async". */
    public String label() {
      return label;
    }

    /** Whether the mode takes a moving rate alpha. */
    public boolean takesAlpha() {
      return elastic;
    }

    /** Whether the mode takes a staleness bound (the asynchronous ones). */
    public boolean takesStaleness() {
      return async;
    }

    /** Every mode's {@link #label}, in declaration order. */
    public static List<String> labels() {
      return Arrays.stream(values()).map(Mode::label).toList();
    }

    /**
     * The mode named {@code label}.
     *
     * @param option what the name was given as, for the message ("--averaging")
     * @throws IllegalArgumentException naming {@code option} and the accepted names
     */
    public static Mode parse(String label, String option) {
      for (Mode m : values()) {
        if (m.label.equals(label)) {
          return m;
        }
      }
      List<String> l = labels();
      throw new IllegalArgumentException(
          option
              + " must be "
              + String.join(", ", l.subList(0, l.size() - 1))
              + " or "
              + l.get(l.size() - 1)
              + " but was '"
              + label
              + "'");
    }

    /**
     * This mode with its parameters; those it does not take are ignored.
     *
     * @throws IllegalArgumentException when alpha or the staleness bound it takes is out of range
     */
    public Averaging with(double alpha, int staleness) {
      return switch (this) {
        case PLAIN -> Averaging.PLAIN;
        case EASGD -> elastic(alpha);
        case ALL_REDUCE -> Averaging.ALL_REDUCE;
        case DOWNPOUR -> downpour(staleness);
        case EASGD_ASYNC -> asyncElastic(alpha, staleness);
      };
    }
  }

  private final Mode mode;
  private final float alpha;
  private final int staleness;

  private Averaging(Mode mode, float alpha, int staleness) {
    this.mode = mode;
    this.alpha = alpha;
    this.staleness = staleness;
  }

  /**
   * The mode named {@code mode} with the parameters given (null: not given), as the command line
   * takes them: alpha is needed by the elastic modes and refused by the others, a staleness bound
   * is refused by the synchronous modes and {@value #DEFAULT_STALENESS} when not given.
   *
   * @param prefix what the option names start with in messages ("--" for "--averaging")
   * @throws IllegalArgumentException naming the option that is wrong
   */
  public static Averaging parse(String mode, Double alpha, Integer staleness, String prefix) {
    Mode m = Mode.parse(mode, prefix + "averaging");
    if (m.takesAlpha() != (alpha != null)) {
      throw new IllegalArgumentException(
          m.takesAlpha()
              ? prefix + "averaging " + mode + " needs " + prefix + "alpha A (0 <= A <= 1)"
              : prefix + "alpha applies only to " + prefix + "averaging " + elasticLabels());
    }
    if (staleness != null && !m.takesStaleness()) {
      throw new IllegalArgumentException(
          prefix + "staleness applies only to " + prefix + "averaging " + asyncLabels());
    }
    return m.with(alpha == null ? 0 : alpha, staleness == null ? DEFAULT_STALENESS : staleness);
  }

  private static String elasticLabels() {
    return Arrays.stream(Mode.values())
        .filter(Mode::takesAlpha)
        .map(Mode::label)
        .collect(Collectors.joining(" or "));
  }

  private static String asyncLabels() {
    return Arrays.stream(Mode.values())
        .filter(Mode::takesStaleness)
        .map(Mode::label)
        .collect(Collectors.joining(" or "));
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
    return new Averaging(Mode.DOWNPOUR, 0f, checkStaleness(staleness));
  }

  /** Asynchronous elastic averaging with the default staleness bound. */
  public static Averaging asyncElastic(double alpha) {
    return asyncElastic(alpha, DEFAULT_STALENESS);
  }

  /** Asynchronous elastic averaging: moving rate {@code alpha} in [0, 1], a staleness bound. */
  public static Averaging asyncElastic(double alpha, int staleness) {
    return new Averaging(Mode.EASGD_ASYNC, elastic(alpha).alpha, checkStaleness(staleness));
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
    return new Averaging(Mode.EASGD, (float) alpha, SYNCHRONOUS);
  }

  /** Which of the modes this is. */
  public Mode mode() {
    return mode;
  }

  /** Whether the workers push to a parameter server without a barrier between them. */
  public boolean isAsync() {
    return mode.takesStaleness();
  }

  /** The staleness bound of an asynchronous mode (-1 for a synchronous one). */
  public int staleness() {
    return staleness;
  }

  public boolean isElastic() {
    return mode.takesAlpha();
  }

  /** Whether the executors sum the results among themselves (a barrier stage a round). */
  public boolean isAllReduce() {
    return mode == Mode.ALL_REDUCE;
  }

  /** The moving rate (0 for plain averaging). */
  public float alpha() {
    return alpha;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Averaging a
        && a.mode == mode
        && a.alpha == alpha
        && a.staleness == staleness;
  }

  @Override
  public int hashCode() {
    return (mode.hashCode() * 31 + Float.hashCode(alpha)) * 31 + staleness;
  }

  @Override
  public String toString() {
    return switch (mode) {
      case PLAIN, ALL_REDUCE -> mode.label();
      case EASGD -> "elastic(alpha=" + alpha + ")";
      case DOWNPOUR -> "downpour(staleness=" + staleness + ")";
      case EASGD_ASYNC -> "easgd-async(alpha=" + alpha + ", staleness=" + staleness + ")";
    };
  }
}
