package org.sparknet.api.internal.wire;

import java.io.Serializable;

/**
 * What one worker did in a round, apart from the weights it sends: examples fed (batch rows,
 * wrapped ones included), solver steps, the sum of its per-example training loss, where its time
 * went, whether its solver started over, and what went non-finite if it diverged.
 *
 * @param solverRestarted the solver did not continue from the previous round (see {@link
 *     org.sparknet.api.internal.worker.SolverContinuity})
 * @param divergence null, or what went non-finite ("loss NaN", "weight ...")
 * @param device where the worker's net ran: "cpu", "gpu:N", or a comma-separated list for a group
 * @param lineage the token of the solver history the worker's net holds after the round (0:
 *     unknown), recorded by the driver for the result it takes ({@link WorkerLineages})
 */
public record WorkerReport(
    int partition,
    long examples,
    long steps,
    double lossSum,
    WorkerTimings timings,
    boolean solverRestarted,
    String divergence,
    String device,
    long lineage)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The report of a partition without data: it trained nothing. */
  public static WorkerReport idle(int partition) {
    return new WorkerReport(partition, 0, 0, 0, WorkerTimings.NONE, false, null, "", 0);
  }

  /**
   * Where a worker's time went in a round.
   *
   * @param setupMillis reading the broadcast, building the net the first time, setting the weights
   * @param computeMillis the solver steps
   * @param extractMillis copying the weights out and preparing what is sent
   */
  public record WorkerTimings(long setupMillis, long computeMillis, long extractMillis)
      implements Serializable {
    private static final long serialVersionUID = 1L;
    public static final WorkerTimings NONE = new WorkerTimings(0, 0, 0);
  }
}
