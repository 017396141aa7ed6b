package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.sparknet.ndarray.NDArray;
import org.sparknet.ndarray.Shape;

/**
 * A group of {@code k} solvers of one definition that step together on {@code k} threads and
 * average their weights after every step: the hybrid mode of ShmCaffe-H and SINGA's worker groups,
 * where one executor with several cores (or GPUs) is one group and groups average every tau steps
 * across executors ({@code TrainerConfig.Builder.optGroupSize}).
 *
 * <p>Each step, member {@code i} takes the {@code i}-th of {@code k} consecutive batches from the
 * feeder (the feeder is called in member order, so the batches a step sees do not depend on thread
 * timing), all members run one solver step at once, and the weights are set to their mean. For SGD
 * (with momentum and weight decay, both linear) the mean weights then follow one solver with a
 * {@code k}-times larger batch exactly: each member's history is a momentum sum of its own
 * gradients, and the mean of the histories is the momentum sum of the mean gradient. The group's
 * solver state is therefore the members' mean history; restoring it gives every member that mean.
 *
 * <p>Members live as long as the group; the group owns them and its {@code k - 1} helper threads
 * (member 0 runs on the caller's thread) and closes them in {@link #close()}. On a GPU definition
 * {@code gpu:N}, member {@code i} runs on device {@code N + i}.
 */
public final class SolverGroup implements Net {
  private final List<Net> members;
  private final String name;
  private final ExecutorService threads;
  private volatile boolean closed;

  private SolverGroup(List<Net> members, ExecutorService threads) {
    this.members = members;
    this.name = members.get(0).name();
    this.threads = threads;
  }

  /**
   * Builds {@code size} nets of {@code definition} (member {@code i} seeded {@code seed + i}, so
   * that dropout masks differ; on "gpu:N", member {@code i} on device N + i) and starts them from
   * member 0's initial weights.
   *
   * @throws IllegalArgumentException when {@code size < 1} or the definition is bad
   */
  public static SolverGroup build(NetDefinition definition, int size) {
    Objects.requireNonNull(definition, "definition");
    if (size < 1) {
      throw new IllegalArgumentException("Solver group size must be >= 1 but was " + size);
    }
    List<String> devices = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      devices.add(
          definition.device().startsWith("gpu:")
              ? "gpu:" + (Integer.parseInt(definition.device().substring(4)) + i)
              : definition.device());
    }
    return build(definition, devices);
  }

  /**
   * Builds one net of {@code definition} per device in {@code devices} (member {@code i} on {@code
   * devices.get(i)}, seeded {@code seed + i}) and starts them from member 0's initial weights.
   *
   * @throws IllegalArgumentException when the list is empty or the definition is bad
   */
  public static SolverGroup build(NetDefinition definition, List<String> devices) {
    Objects.requireNonNull(definition, "definition");
    int size = devices.size();
    if (size < 1) {
      throw new IllegalArgumentException("Solver group size must be >= 1 but was " + size);
    }
    List<Net> built = new ArrayList<>(size);
    try {
      for (int i = 0; i < size; i++) {
        built.add(
            NetProvider.build(
                definition.withSeed(definition.seed() + i).withDevice(devices.get(i))));
      }
      WeightCollection start = built.get(0).getWeights();
      for (int i = 1; i < size; i++) {
        built.get(i).setWeights(start);
      }
    } catch (RuntimeException e) {
      built.forEach(Net::close);
      throw e;
    }
    AtomicInteger n = new AtomicInteger();
    String name = built.get(0).name();
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
    return new SolverGroup(List.copyOf(built), pool);
  }

  /** The number of solvers in the group. */
  public int size() {
    return members.size();
  }

  @Override
  public String name() {
    return name;
  }

  /** The shapes of one member: each step consumes {@link #size()} batches of these. */
  @Override
  public Map<String, Shape> inputShapes(Phase phase) {
    return first().inputShapes(phase);
  }

  /**
   * Runs {@code numSteps} group steps (each one solver step of every member on its own batch, then
   * the mean of the weights). Returns the mean training loss over members and steps, NaN as soon as
   * a member diverges (the group stops there, like a single net).
   */
  @Override
  public float train(int numSteps, BatchFeeder feeder) {
    Objects.requireNonNull(feeder, "feeder");
    checkOpen();
    if (members.size() == 1) {
      return first().train(numSteps, feeder);
    }
    double lossSum = 0;
    for (int step = 0; step < numSteps; step++) {
      float[] losses = stepAll(feeder);
      for (float l : losses) {
        lossSum += l;
      }
      if (!Double.isFinite(lossSum)) {
        return Float.NaN;
      }
      averageWeights();
    }
    return (float) (lossSum / ((double) numSteps * members.size()));
  }

  /** The divergence of the first member whose last step diverged, or null. */
  @Override
  public String lastDivergence() {
    checkOpen();
    for (Net m : members) {
      String d = m.lastDivergence();
      if (d != null) {
        return d;
      }
    }
    return null;
  }

  /** One solver step of every member at once, the batches handed out in member order. */
  private float[] stepAll(BatchFeeder feeder) {
    int k = members.size();
    Object turn = new Object();
    int[] next = {0};
    List<Future<Float>> running = new ArrayList<>(k - 1);
    for (int i = 1; i < k; i++) {
      Net m = members.get(i);
      BatchFeeder inTurn = inTurn(feeder, turn, next, i);
      running.add(threads.submit(() -> m.train(1, inTurn)));
    }
    float[] losses = new float[k];
    try {
      losses[0] = first().train(1, inTurn(feeder, turn, next, 0));
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

  /**
   * Sets every member's weights to their mean: in place through the engines' weight views when they
   * lend them (native adds, no copies), else through heap copies.
   */
  private void averageWeights() {
    if (!meanThroughViews(0, new ArrayList<>())) {
      WeightCollection mean = Averager.mean(weightsOfAll());
      for (Net m : members) {
        m.setWeights(mean);
      }
    }
  }

  /** Opens member {@code i}'s views inside those of members 0..i-1; averages at the innermost. */
  private boolean meanThroughViews(int i, List<List<NDArray>> held) {
    if (i == members.size()) {
      Averager.meanInPlace(held);
      return true;
    }
    boolean[] done = {false};
    boolean lent =
        members
            .get(i)
            .withWeightViews(
                views -> {
                  held.add(views);
                  done[0] = meanThroughViews(i + 1, held);
                  held.remove(held.size() - 1);
                });
    return lent && done[0];
  }

  private List<WeightCollection> weightsOfAll() {
    List<WeightCollection> all = new ArrayList<>(members.size());
    for (Net m : members) {
      all.add(m.getWeights());
    }
    return all;
  }

  /** Member 0 tests: the members hold the same weights between steps. */
  @Override
  public Map<String, Float> test(int numSteps, BatchFeeder feeder) {
    checkOpen();
    return first().test(numSteps, feeder);
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    checkOpen();
    return first().forward(feeder, blobs);
  }

  @Override
  public WeightCollection getWeights() {
    checkOpen();
    return first().getWeights();
  }

  /** Sets every member's weights (checked by member 0 first, so a bad collection changes none). */
  @Override
  public void setWeights(WeightCollection weights) {
    checkOpen();
    for (Net m : members) {
      m.setWeights(weights);
    }
  }

  @Override
  public int iteration() {
    checkOpen();
    return first().iteration();
  }

  @Override
  public boolean hasSolverState() {
    return first().hasSolverState();
  }

  /** The iteration and the members' mean history (see the class comment). */
  @Override
  public SolverState getSolverState() {
    checkOpen();
    List<WeightCollection> histories = new ArrayList<>(members.size());
    long iteration = -1;
    for (Net m : members) {
      SolverState s = m.getSolverState();
      iteration = s.iteration();
      histories.add(s.history());
    }
    WeightCollection history =
        histories.get(0).numLayers() == 0 ? histories.get(0) : Averager.mean(histories);
    return new SolverState(iteration, history);
  }

  @Override
  public void setSolverState(SolverState state) {
    checkOpen();
    for (Net m : members) {
      m.setSolverState(state);
    }
  }

  private Net first() {
    return members.get(0);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("SolverGroup of net '" + name() + "' is closed");
    }
  }

  @Override
  public String toString() {
    return "SolverGroup{" + members.size() + " x " + name + (closed ? ", closed" : "") + "}";
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (threads != null) {
      threads.shutdownNow();
    }
    RuntimeException first = null;
    for (Net m : members) {
      try {
        m.close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
