package org.sparknet.api.internal.driver;

import java.util.Locale;

/**
 * What the parameter server counted per worker in one asynchronous round: pushes applied and
 * dropped (too stale), the steps and examples they carried, their staleness (pushes by others
 * between the worker's pull and its push), and the grants lost with a failed task.
 */
public final class AsyncStats {
  /** One partition's counts. */
  public static final class Worker {
    long pushes;
    long dropped;
    long fed;
    double fedLossSum;
    long steps;
    long examples;
    double lossSum;
    long stalenessSum;
    long maxStaleness;
    long lostSteps;
    long lostPulls;

    void record(boolean applied, long staleness, long examples, long steps, double lossSum) {
      fed += examples;
      fedLossSum += lossSum;
      if (applied) {
        pushes++;
        this.steps += steps;
        this.examples += examples;
        this.lossSum += lossSum;
      } else {
        dropped++;
      }
      stalenessSum += staleness;
      maxStaleness = Math.max(maxStaleness, staleness);
    }

    /** Pushes the server applied. */
    public long pushes() {
      return pushes;
    }

    /** Pushes dropped for staleness. */
    public long dropped() {
      return dropped;
    }

    /** Solver steps carried by the applied pushes. */
    public long steps() {
      return steps;
    }

    /** Examples fed for the applied pushes. */
    public long examples() {
      return examples;
    }

    /** Mean staleness over all pushes (applied and dropped). */
    public double meanStaleness() {
      long n = pushes + dropped;
      return n == 0 ? 0 : (double) stalenessSum / n;
    }

    public long maxStaleness() {
      return maxStaleness;
    }

    /** Steps granted to a connection that ended before pushing them (a failed task). */
    public long lostSteps() {
      return lostSteps;
    }

    /** Grants lost that way. */
    public long lostPulls() {
      return lostPulls;
    }

    /** Examples fed for every push, applied or dropped: how far the worker is in its data. */
    public long fed() {
      return fed;
    }

    /** The training loss summed over the examples of {@link #fed}. */
    public double fedLossSum() {
      return fedLossSum;
    }

    /** The counts since {@code before}; the maximum staleness stays this one's. */
    Worker minus(Worker before) {
      Worker c = copy();
      c.pushes -= before.pushes;
      c.dropped -= before.dropped;
      c.fed -= before.fed;
      c.fedLossSum -= before.fedLossSum;
      c.steps -= before.steps;
      c.examples -= before.examples;
      c.lossSum -= before.lossSum;
      c.stalenessSum -= before.stalenessSum;
      c.lostSteps -= before.lostSteps;
      c.lostPulls -= before.lostPulls;
      return c;
    }

    Worker copy() {
      Worker c = new Worker();
      c.fed = fed;
      c.fedLossSum = fedLossSum;
      c.pushes = pushes;
      c.dropped = dropped;
      c.steps = steps;
      c.examples = examples;
      c.lossSum = lossSum;
      c.stalenessSum = stalenessSum;
      c.maxStaleness = maxStaleness;
      c.lostSteps = lostSteps;
      c.lostPulls = lostPulls;
      return c;
    }
  }

  private final Worker[] workers;

  AsyncStats(int n) {
    workers = new Worker[n];
    for (int i = 0; i < n; i++) {
      workers[i] = new Worker();
    }
  }

  /** Partition {@code p}'s counts. */
  public Worker worker(int p) {
    return workers[p];
  }

  public int workers() {
    return workers.length;
  }

  /** Applied pushes of all workers. */
  public long pushes() {
    long n = 0;
    for (Worker w : workers) {
      n += w.pushes;
    }
    return n;
  }

  /** Steps lost with failed tasks, all workers. */
  public long lostSteps() {
    long n = 0;
    for (Worker w : workers) {
      n += w.lostSteps;
    }
    return n;
  }

  /** The counts since {@code before} (a snapshot of the same server). */
  AsyncStats minus(AsyncStats before) {
    AsyncStats c = new AsyncStats(workers.length);
    for (int i = 0; i < workers.length; i++) {
      c.workers[i] = workers[i].minus(before.workers[i]);
    }
    return c;
  }

  AsyncStats copy() {
    AsyncStats c = new AsyncStats(workers.length);
    for (int i = 0; i < workers.length; i++) {
      c.workers[i] = workers[i].copy();
    }
    return c;
  }

  /** One line per worker for the log. */
  public String summary() {
    StringBuilder b = new StringBuilder();
    for (int p = 0; p < workers.length; p++) {
      Worker w = workers[p];
      b.append(
          String.format(
              Locale.ROOT,
              "%n  worker %d: %d pushes (%d dropped stale), %d steps, %d examples, staleness mean"
                  + " %.1f max %d, lost %d steps",
              p,
              w.pushes,
              w.dropped,
              w.steps,
              w.examples,
              w.meanStaleness(),
              w.maxStaleness,
              w.lostSteps));
    }
    return b.toString();
  }
}
