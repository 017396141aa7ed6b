package org.sparknet.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.sparknet.api.averaging.Averager;
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
 * solver state holds every member's own history, so that a restored group repeats bit for bit.
 *
 * <p>Members live as long as the group; the group owns them and its {@code k - 1} helper threads
 * (member 0 runs on the caller's thread) and closes them in {@link #close()}. On a GPU definition
 * {@code gpu:N}, member {@code i} runs on device {@code N + i}.
 */
public final class SolverGroup implements Net {
  private final List<Net> members;
  private final String name;
  private static final String MEMBER = "member";

  private final GroupSteps steps; // the helper threads and the members' per-step seeds
  private volatile boolean closed;

  private SolverGroup(List<Net> members) {
    this.members = members;
    this.name = members.get(0).name();
    this.steps = GroupSteps.start(members, name);
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
    return new SolverGroup(List.copyOf(built));
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
      float[] losses = steps.stepAll(feeder);
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

  /**
   * Seeds every member's generators for the steps that follow: each member runs each step on a pool
   * thread (or the caller's), so the member reseeds there before its step, with {@code
   * mix(mix(seed) + k) + m} for its k-th step since this call (m the member; mix SplitMix64's
   * finalizer).
   */
  @Override
  public void reseed(long seed) {
    checkOpen();
    if (members.size() == 1) {
      first().reseed(seed);
      return;
    }
    steps.reseed(seed);
  }

  /**
   * Sets every member's weights to their mean: in place through the engines' weight views when they
   * lend them (native adds, no copies), else through heap copies.
   */
  private void averageWeights() {
    if (!meanThroughViews(0, new ArrayList<>())) {
      WeightCollection mean = WeightCollection.mean(weightsOfAll());
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
    return openFirst().test(numSteps, feeder);
  }

  @Override
  public int testNetCount() {
    return openFirst().testNetCount();
  }

  @Override
  public Map<String, Float> test(int testNet, int numSteps, BatchFeeder feeder) {
    return openFirst().test(testNet, numSteps, feeder);
  }

  @Override
  public Map<String, Shape> testInputShapes(int testNet) {
    return openFirst().testInputShapes(testNet);
  }

  @Override
  public List<String> testNetStages(int testNet) {
    return openFirst().testNetStages(testNet);
  }

  @Override
  public Map<String, NDArray> forward(BatchFeeder feeder, List<String> blobs) {
    return openFirst().forward(feeder, blobs);
  }

  @Override
  public WeightCollection getWeights() {
    return openFirst().getWeights();
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
    return openFirst().iteration();
  }

  /** The members' native bytes together: each holds its own blobs. */
  @Override
  public long nativeBytes() {
    checkOpen();
    long sum = 0;
    for (Net m : members) {
      sum += m.nativeBytes();
    }
    return sum;
  }

  /** Sets every member's max_iter; true when each of them has the setting. */
  @Override
  public boolean setMaxIterations(long maxIterations) {
    checkOpen();
    boolean all = true;
    for (Net m : members) {
      all &= m.setMaxIterations(maxIterations);
    }
    return all;
  }

  @Override
  public boolean hasSolverState() {
    return first().hasSolverState();
  }

  /**
   * The iteration and every member's own history, keyed {@code member<i>/<layer>} (one member: its
   * state as it is). The mean history would give the same mean weights in exact arithmetic only; a
   * restored group continues bit for bit from the members' own.
   */
  @Override
  public SolverState getSolverState() {
    checkOpen();
    if (members.size() == 1) {
      return first().getSolverState();
    }
    WeightCollection all = new WeightCollection();
    long iteration = -1;
    for (int i = 0; i < members.size(); i++) {
      SolverState s = members.get(i).getSolverState();
      iteration = s.iteration();
      for (String layer : s.history().layerNames()) {
        all.put(MEMBER + i + "/" + layer, s.history().get(layer));
      }
    }
    return new SolverState(iteration, all);
  }

  /**
   * Restores a state of {@link #getSolverState()}: each member its own history; a state of one
   * history (a single solver's, or the members' mean) goes to every member.
   */
  @Override
  public void setSolverState(SolverState state) {
    checkOpen();
    WeightCollection h = state.history();
    if (members.size() == 1 || !h.layerNames().stream().anyMatch(l -> l.startsWith(MEMBER))) {
      for (Net m : members) {
        m.setSolverState(state);
      }
      return;
    }
    for (int i = 0; i < members.size(); i++) {
      String prefix = MEMBER + i + "/";
      WeightCollection own = new WeightCollection();
      for (String layer : h.layerNames()) {
        if (layer.startsWith(prefix)) {
          own.put(layer.substring(prefix.length()), h.get(layer));
        }
      }
      members.get(i).setSolverState(new SolverState(state.iteration(), own));
    }
  }

  private Net first() {
    return members.get(0);
  }

  /** Member 0 answering for the group, which must be open: the step every query shares. */
  private Net openFirst() {
    checkOpen();
    return first();
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
    RuntimeException first = null; // the first member's failure to close, rethrown at the end
    steps.close();
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
