package org.sparknet.api.train;

import java.io.Serializable;

/**
 * One worker's pushes to the parameter server in an asynchronous round ({@link
 * Averaging#downpour(int)}, {@link Averaging#asyncElastic(double, int)}).
 *
 * @param pushes updates the server applied
 * @param dropped updates dropped as staler than the bound
 * @param steps solver steps the applied updates carried
 * @param examples examples fed for the applied updates
 * @param meanStaleness pushes by other workers between this worker's pull and its push, on average
 * @param maxStaleness the most of them
 * @param lostSteps steps granted to a task that ended before pushing them (a failure)
 */
public record WorkerPushes(
    int partition,
    long pushes,
    long dropped,
    long steps,
    long examples,
    double meanStaleness,
    long maxStaleness,
    long lostSteps)
    implements Serializable {
  private static final long serialVersionUID = 1L;
}
