package org.sparknet.api.internal.wire;

import java.io.Serializable;

/**
 * Which solver history each partition's accepted result of round {@code round} came from: the
 * lineage token its worker reported. A worker's solver state (momentum, iteration) and, under an
 * elastic rule, its own weights carry on into the next round only where its token is the accepted
 * one: a speculative copy that lost, or an original that lost to its copy, also completed the round
 * on its executor, on a history the driver did not take.
 *
 * @param lineages by partition; 0 where unknown (no round yet, a resume, asynchronous rounds)
 */
public record WorkerLineages(int round, long[] lineages) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** No round accepted yet, or a restore: nothing to compare with. */
  public static WorkerLineages none(int round) {
    return new WorkerLineages(round, new long[0]);
  }

  /** Partition {@code p}'s accepted token, or 0 when unknown. */
  public long lineageOf(int partition) {
    return partition < lineages.length ? lineages[partition] : 0;
  }

  /**
   * Whether a worker that reports {@code lineage} for partition {@code p} holds the accepted one.
   */
  public boolean accepts(int partition, long lineage) {
    long accepted = lineageOf(partition);
    return accepted == 0 || accepted == lineage;
  }
}
