package org.sparknet.api.internal;

import java.io.Serializable;
import java.util.Iterator;
import org.apache.spark.broadcast.Broadcast;
import org.sparknet.api.SolverState;
import org.sparknet.api.data.DataShard;

/**
 * What a training round's tasks read, held by the one RDD that serves every round of a training
 * set. Spark serialises a job's function when the job is submitted, so each round's tasks carry the
 * values set before that round's {@code collect}; the driver sets them, runs the job (which blocks
 * until it and any retried task are over) and clears them. Building a new RDD each round instead
 * costs a closure cleaning and a call-site capture on the driver's critical path.
 */
public final class RoundInput implements Serializable {
  private static final long serialVersionUID = 1L;

  private WorkerRound.Task task;
  private Broadcast<float[]> weights;
  private Broadcast<SolverState[]> solverStates;

  /** The next round's task and broadcasts ({@code solverStates} may be null). */
  public void set(
      WorkerRound.Task task, Broadcast<float[]> weights, Broadcast<SolverState[]> solverStates) {
    this.task = task;
    this.weights = weights;
    this.solverStates = solverStates;
  }

  /** Drops the references after a round (its broadcasts are being destroyed). */
  public void clear() {
    set(null, null, null);
  }

  /** The task side: one partition's round. */
  public Iterator<PartitionResult> train(int partition, Iterator<DataShard> shards) {
    if (task == null) {
      throw new IllegalStateException("A SparkNet round ran without its inputs (a stale job?)");
    }
    return WorkerRound.train(task, weights, solverStates, partition, shards);
  }
}
