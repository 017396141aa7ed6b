package org.sparknet.api.train;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.apache.hadoop.fs.Path;
import org.apache.spark.api.java.JavaSparkContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.SolverState;
import org.sparknet.api.WeightCollection;
import org.sparknet.api.internal.averaging.AveragingStrategy;
import org.sparknet.api.internal.checkpoint.Checkpoint;
import org.sparknet.api.internal.checkpoint.CheckpointDir;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.TrainerState;
import org.sparknet.api.internal.driver.WorkerJobs;
import org.sparknet.api.model.ModelStore;

/**
 * Writing a trainer's state to a checkpoint directory and resuming from one: the fingerprint that
 * ties a checkpoint to its net definition, the checks that it fits this trainer, and the job that
 * collects the workers' solver states (and, for elastic averaging, their own weights).
 */
final class TrainerCheckpoints {
  private static final Logger LOG = LoggerFactory.getLogger(TrainerCheckpoints.class);

  private final JavaSparkContext sc;
  private final TrainerConfig cfg;
  private final String trainerId;
  private final int workers;
  private final String fingerprint;
  private final AveragingStrategy rule;

  TrainerCheckpoints(JavaSparkContext sc, TrainerConfig cfg, String trainerId, int workers) {
    this.sc = sc;
    this.cfg = cfg;
    this.rule = WorkerPlans.averaging(cfg);
    this.trainerId = trainerId;
    this.workers = workers;
    this.fingerprint = fingerprint(cfg.netDefinition());
  }

  /** Whether {@code dir} holds a checkpoint. */
  boolean exists(String dir) {
    try {
      return new CheckpointDir(dir, sc.hadoopConfiguration()).readLatest() != null;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoints in " + dir, e);
    }
  }

  /**
   * Checks that checkpoints can be written in {@code dir}, then restores {@code state} from the
   * newest checkpoint there; returns false when there is none.
   *
   * @throws IllegalArgumentException when {@code dir} cannot be written, or the checkpoint was
   *     written for another net definition, weight layout or worker count
   */
  boolean resume(String dir, TrainerState state) {
    Checkpoint c;
    try {
      CheckpointDir checkpoints = new CheckpointDir(dir, sc.hadoopConfiguration());
      checkpoints.checkWritable();
      c = checkpoints.readLatest();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the checkpoints in " + dir, e);
    }
    if (c == null) {
      return false;
    }
    check(c, dir, state);
    if (c.workerWeights() != null && !rule.checkpointsWorkerWeights()) {
      // Written by an elastic run, resumed with a rule whose workers start from the centre.
      c =
          new Checkpoint(
              c.fingerprint(),
              c.round(),
              c.iteration(),
              c.seed(),
              c.positions(),
              c.layout(),
              c.weights(),
              c.solverStates(),
              null);
    }
    state.restore(c);
    LOG.info("Resumed from {} in {}", c, dir);
    return true;
  }

  private void check(Checkpoint c, String dir, TrainerState state) {
    if (!c.fingerprint().equals(fingerprint)) {
      throw new IllegalArgumentException(
          "The checkpoint of round "
              + c.round()
              + " in "
              + dir
              + " was written for another net definition; use another checkpoint directory"
              + " or the same definition");
    }
    if (!c.layout().equals(state.layout())) {
      throw new IllegalArgumentException(
          "The checkpoint in "
              + dir
              + " holds "
              + c.layout()
              + " but the net has "
              + state.layout());
    }
    if (c.positions().length != workers) {
      throw new IllegalArgumentException(
          "The checkpoint in "
              + dir
              + " was written with "
              + c.positions().length
              + " workers but this trainer has "
              + workers
              + "; resume with optWorkers("
              + c.positions().length
              + ")");
    }
    for (Object[] perWorker : new Object[][] {c.solverStates(), c.workerWeights()}) {
      if (perWorker != null && perWorker.length != workers) {
        throw new IllegalArgumentException(
            "The checkpoint in "
                + dir
                + " holds worker state for "
                + perWorker.length
                + " workers but names "
                + workers
                + "; it is corrupt");
      }
    }
  }

  /**
   * Writes the state to {@code dir}. The workers' solver states are collected (one job) when the
   * engine has them, and their own weights (one job) when the averaging rule keeps them on the
   * workers; a resume whose states or weights the workers have not taken yet writes those.
   */
  void write(String dir, TrainerState state, PackedData training, boolean hasSolverState) {
    SolverState[] states = hasSolverState ? solverStates(state, training) : null;
    float[][] own = rule.checkpointsWorkerWeights() ? workerWeights(state, training) : null;
    try {
      new CheckpointDir(dir, sc.hadoopConfiguration())
          .write(state.toCheckpoint(fingerprint, cfg.seed(), states, own));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "Cannot write the checkpoint of round " + state.round() + " to " + dir, e);
    }
  }

  private SolverState[] solverStates(TrainerState state, PackedData training) {
    if (state.pendingSolverStates() != null) {
      return state.pendingSolverStates().clone();
    }
    return WorkerJobs.solverStates(sc, training, trainerId, state.lineages());
  }

  private float[][] workerWeights(TrainerState state, PackedData training) {
    if (state.pendingWorkerWeights() != null) {
      return state.pendingWorkerWeights().clone();
    }
    sc.setJobDescription("SparkNet worker weights after round " + state.round());
    try {
      return WorkerJobs.weights(training, trainerId, state.layout(), state.lineages());
    } finally {
      sc.setJobDescription(null);
    }
  }

  /**
   * Saves a model directory ({@link ModelStore}: definition and weights file) with the trainer's
   * state under {@code state/}.
   *
   * @throws IllegalArgumentException when a model is saved there and {@code overwrite} is false
   */
  void save(
      String dir,
      boolean overwrite,
      WeightCollection weights,
      TrainerState state,
      PackedData training,
      boolean hasSolverState) {
    String stateDir = stateDir(dir);
    if (exists(stateDir)) {
      if (!overwrite) {
        throw new IllegalArgumentException(
            "A SparkNet model is already saved in "
                + dir
                + "; pass overwrite=true to replace it or choose another directory");
      }
      delete(dir);
    }
    new ModelStore(sc.hadoopConfiguration()).writeModel(dir, cfg.netDefinition(), weights);
    write(stateDir, state, training, hasSolverState);
  }

  /**
   * Restores {@code state} from a directory written by {@link #save}, or from a checkpoint
   * directory.
   *
   * @throws IllegalArgumentException when neither holds a checkpoint
   */
  void restore(String dir, TrainerState state) {
    String stateDir = stateDir(dir);
    if (!resume(exists(stateDir) ? stateDir : dir, state)) {
      throw new IllegalArgumentException("No SparkNet model is saved in " + dir);
    }
  }

  private static String stateDir(String dir) {
    return new Path(dir, "state").toString();
  }

  private void delete(String dir) {
    try {
      Path p = new Path(dir);
      p.getFileSystem(sc.hadoopConfiguration()).delete(p, true);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + dir, e);
    }
  }

  /** A short hash of everything that defines the net: engine, texts, sample shape, seed. */
  static String fingerprint(NetDefinition d) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      for (String s :
          new String[] {
            d.engine(),
            d.solverText(),
            String.valueOf(d.netText()),
            String.valueOf(d.sampleShape()),
            Long.toString(d.seed())
          }) {
        md.update(s.getBytes(StandardCharsets.UTF_8));
        md.update((byte) 0);
      }
      return d.engine() + ":" + HexFormat.of().formatHex(md.digest(), 0, 12);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
