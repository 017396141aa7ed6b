package org.sparknet.api.train;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.api.java.JavaSparkContext;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.internal.driver.MetricsLog;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.TrainerState;

/**
 * Where a {@link SparkNetTrainer}'s run is kept and where its rounds go: the config's checkpoint
 * directory (resumed from when the trainer starts, written every {@code checkpointEvery} rounds),
 * saved trainer directories, the metrics file (one JSON line a round) and the round listeners.
 *
 * <p>Apart from the trainer so that the trainer drives rounds and this class records them. Owns the
 * metrics file, closed by {@link #close()}; the state is the trainer's.
 */
final class RoundOutputs implements AutoCloseable {
  private final TrainerConfig cfg;
  private final TrainerState state;
  private final TrainerCheckpoints checkpoints;
  private final List<RoundListener> listeners = new CopyOnWriteArrayList<>();
  private final boolean resumed;
  private final MetricsLog metricsLog; // null without a metrics file

  /**
   * Resumes {@code state} from the config's checkpoint directory when it holds a checkpoint, then
   * opens the metrics file after the resumed round.
   *
   * @throws IllegalArgumentException when the checkpoint directory cannot be written or holds a
   *     checkpoint of another net or worker count
   */
  RoundOutputs(
      JavaSparkContext sc, TrainerConfig cfg, String trainerId, int workers, TrainerState state) {
    this.cfg = cfg;
    this.state = state;
    this.checkpoints = new TrainerCheckpoints(sc, cfg, trainerId, workers);
    this.resumed =
        cfg.checkpointDir().isPresent() && checkpoints.resume(cfg.checkpointDir().get(), state);
    this.metricsLog =
        MetricsLog.started(cfg.metricsFile(), sc.hadoopConfiguration(), state.round());
  }

  /** Whether the trainer resumed from a checkpoint (so that its warm start is done). */
  boolean resumed() {
    return resumed;
  }

  /**
   * Records a finished round: a checkpoint when the round is due one, a line in the metrics file,
   * then the listeners in the order they were added.
   */
  void record(RoundMetrics m, PackedData training, boolean hasSolverState) {
    if (cfg.checkpointDir().isPresent() && m.round() % cfg.checkpointEvery() == 0) {
      checkpoints.write(cfg.checkpointDir().get(), state, training, hasSolverState);
    }
    if (metricsLog != null) {
      metricsLog.append(m.toJson());
    }
    for (RoundListener l : listeners) {
      l.onRound(m);
    }
  }

  /** Saves {@code weights} as a model directory plus the state under {@code state/}. */
  void save(
      String dir,
      boolean overwrite,
      WeightCollection weights,
      PackedData training,
      boolean hasSolverState) {
    checkpoints.save(dir, overwrite, weights, state, training, hasSolverState);
  }

  /** Restores the state from a saved trainer or the latest checkpoint of a directory. */
  void restore(String dir) {
    checkpoints.restore(dir, state);
  }

  void addListener(RoundListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  boolean removeListener(RoundListener listener) {
    return listeners.remove(listener);
  }

  /** Closes the metrics file. */
  @Override
  public void close() {
    if (metricsLog != null) {
      metricsLog.close();
    }
  }
}
