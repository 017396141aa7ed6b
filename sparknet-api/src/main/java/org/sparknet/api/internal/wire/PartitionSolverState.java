package org.sparknet.api.internal.wire;

import java.io.Serializable;
import org.sparknet.api.SolverState;

/**
 * One partition's solver state, read back from its worker for a checkpoint (null when its worker
 * does not exist in the JVM that ran the task).
 */
public record PartitionSolverState(int partition, SolverState state) implements Serializable {
  private static final long serialVersionUID = 1L;
}
