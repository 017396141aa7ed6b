package org.sparknet.api.internal.driver;

import org.sparknet.api.SolverState;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.wire.RoundSteps;
import org.sparknet.api.internal.wire.RoundTotals;
import org.sparknet.api.internal.wire.WeightLayout;
import org.sparknet.api.internal.wire.WorkerLineages;

/**
 * Everything the driver knows about a training run between rounds, in one place: the current
 * weights (the centre, for elastic averaging) in a {@link WeightLayout}, the rounds completed, the
 * solver iterations, each partition's position in its data, the token of the weights (changed
 * whenever they are replaced from outside the loop), the solver states a resume has not handed to
 * the workers yet, and which solver history each partition's last result came from. A checkpoint is
 * a copy of this state.
 */
public final class TrainerState {
  private final WeightLayout layout;
  private float[] weights;
  private int round;
  private long iteration;
  private long[] positions;
  private long weightsToken;
  private SolverState[] pendingSolverStates;
  private float[][] pendingWorkerWeights;
  private long[] lineages = new long[0];

  public TrainerState(WeightLayout layout, float[] weights, int workers) {
    this.layout = layout;
    this.weights = weights;
    this.positions = new long[workers];
  }

  public WeightLayout layout() {
    return layout;
  }

  /** The current weights (not a copy: callers must not change them). */
  public float[] weights() {
    return weights;
  }

  public int round() {
    return round;
  }

  public long iteration() {
    return iteration;
  }

  public long[] positions() {
    return positions.clone();
  }

  public long weightsToken() {
    return weightsToken;
  }

  /** Solver states from a checkpoint that the workers have not taken yet, else null. */
  public SolverState[] pendingSolverStates() {
    return pendingSolverStates;
  }

  /** Elastic workers' own weights from a checkpoint not handed out yet, else null. */
  public float[][] pendingWorkerWeights() {
    return pendingWorkerWeights;
  }

  /** The solver histories of the last round's results, by partition. */
  public WorkerLineages lineages() {
    return new WorkerLineages(round, lineages.clone());
  }

  /**
   * What the next round starts from.
   *
   * @param sumOnDriver see {@link DriverRound.Start#sumOnDriver()}
   * @param steps the round's steps per worker
   */
  public DriverRound.Start nextRound(boolean sumOnDriver, RoundSteps steps) {
    return new DriverRound.Start(
        round + 1,
        weights,
        positions.clone(),
        weightsToken,
        pendingSolverStates,
        pendingWorkerWeights,
        sumOnDriver,
        steps,
        lineages());
  }

  /**
   * Replaces the weights from outside the loop (set by the user, a warm start); every worker starts
   * from them, also one a resume would have given its own weights.
   */
  public void replaceWeights(float[] newWeights) {
    if (newWeights.length != layout.size()) {
      throw new IllegalArgumentException(
          "Weight layout holds "
              + layout.size()
              + " floats but the values have "
              + newWeights.length);
    }
    weights = newWeights;
    weightsToken++;
    pendingWorkerWeights = null;
  }

  /**
   * Records a completed round: the combined weights, the steps the slowest worker ran, and the
   * examples each partition fed. What a resume handed to the workers is now theirs.
   */
  public void completeRound(float[] next, RoundTotals totals) {
    weights = next;
    round++;
    iteration += totals.maxSteps();
    for (int p = 0; p < positions.length; p++) {
      positions[p] += totals.examplesOf(p);
    }
    lineages = totals.lineages();
    pendingSolverStates = null;
    pendingWorkerWeights = null;
  }

  /**
   * Takes over a checkpoint's state; the workers restart from its weights, or from their own
   * weights where it holds them.
   */
  public void restore(Checkpoint c) {
    weights = c.weights();
    round = c.round();
    iteration = c.iteration();
    positions = c.positions().clone();
    pendingSolverStates = c.solverStates();
    pendingWorkerWeights = c.workerWeights();
    lineages = new long[0];
    weightsToken++;
  }

  /** A checkpoint of this state (copies), with the workers' current states given by the caller. */
  public Checkpoint toCheckpoint(
      String fingerprint, long seed, SolverState[] solverStates, float[][] workerWeights) {
    return new Checkpoint(
        fingerprint,
        round,
        iteration,
        seed,
        positions.clone(),
        layout,
        weights.clone(),
        solverStates,
        workerWeights);
  }
}
