package org.sparknet.apps.mnist;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.sparknet.api.NetDefinition;

/**
 * The Fashion-MNIST recipes that {@code bin/sparknet demo --recipe} runs: a net and solver of
 * Caffe's own layer set (unchanged-Caffe prototxt, shipped as resources beside LeNet) and the
 * SparkNet settings they were tuned with.
 */
public enum FashionRecipe {
  /** Caffe's LeNet with the demo's learning rate: the default demo, planned in epochs. */
  LENET("LeNet", LeNet.TRAIN_BATCH, 50, 3, 0.03, null),

  /**
   * The recipe tuned for time to accuracy on 2 cores (BENCHMARKS.md section 17), on 6,000 held-out
   * training images: two 3×3 convolutions of 32 and 64 filters, padded to keep their input's size,
   * 256 hidden units with dropout, batch 32, Nesterov. Its learning rate falls linearly to zero at
   * the last planned step, and it is planned by time (5 minutes unless told otherwise): the steps
   * that fit are measured on the machine it runs on, so it reaches its best accuracy at the budget
   * on a slow machine and on a fast one. Its epochs only size the first round's learning rate,
   * before the pace is known.
   */
  FAST("fashion_fast", 32, 40, 11, Double.NaN, Duration.ofMinutes(5));

  private final String netName;
  private final int trainBatch;
  private final int tau;
  private final double epochs;
  private final double defaultLr;
  private final Duration budget;

  FashionRecipe(
      String netName, int trainBatch, int tau, double epochs, double defaultLr, Duration budget) {
    this.netName = netName;
    this.trainBatch = trainBatch;
    this.tau = tau;
    this.epochs = epochs;
    this.defaultLr = defaultLr;
    this.budget = budget;
  }

  /**
   * The recipe that {@code --recipe NAME} names (its constant's name, in any case); the error lists
   * the names.
   */
  public static FashionRecipe named(String name) {
    for (FashionRecipe r : values()) {
      if (r.toString().equals(name.toLowerCase(Locale.ROOT))) {
        return r;
      }
    }
    throw new IllegalArgumentException(
        "--recipe must be one of " + List.of(values()) + " but was '" + name + "'");
  }

  /** The net's name, as its prototxt gives it. */
  public String netName() {
    return netName;
  }

  /** Images per solver step of one worker. */
  public int trainBatch() {
    return trainBatch;
  }

  /** Solver steps per round the recipe was tuned with. */
  public int tau() {
    return tau;
  }

  /**
   * The epochs the demo plans for this recipe unless told otherwise (a budgeted recipe: the epochs
   * its first round's learning rate assumes).
   */
  public double epochs() {
    return epochs;
  }

  /** The wall-clock budget the demo plans this recipe by, or null: it is planned in epochs. */
  public Duration budget() {
    return budget;
  }

  /**
   * The net and solver. {@code baseLr} replaces the solver's {@code base_lr} when not null; {@code
   * maxIter} is the solver steps each worker will run, which a {@code poly} policy decays over.
   */
  public NetDefinition definition(long seed, Double baseLr, long maxIter) {
    if (this == LENET) {
      return LeNet.definition(seed, baseLr == null ? defaultLr : baseLr);
    }
    String solver = planned(LeNet.resource(netName + "_solver.prototxt"), seed, maxIter);
    if (baseLr != null) {
      solver = solver.replaceFirst("(?m)^base_lr: .*$", "base_lr: " + baseLr);
    }
    return new NetDefinition(
        "caffe", solver, LeNet.resource(netName + ".prototxt"), List.of(1, 28, 28), seed, "cpu");
  }

  /**
   * {@code solverText} with its {@code random_seed} and {@code max_iter} replaced: a {@code poly}
   * learning rate then reaches 0 at the last of the {@code maxIter} steps a worker runs.
   */
  public static String planned(String solverText, long seed, long maxIter) {
    return solverText
        .replaceFirst("(?m)^max_iter: .*$", "max_iter: " + maxIter)
        .replaceFirst("(?m)^random_seed: .*$", "random_seed: " + seed);
  }

  /** The {@code --recipe} name: the constant's name in lower case. */
  @Override
  public String toString() {
    return name().toLowerCase(Locale.ROOT);
  }
}
