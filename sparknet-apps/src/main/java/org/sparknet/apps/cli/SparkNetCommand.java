package org.sparknet.apps.cli;

import java.util.concurrent.Callable;

/**
 * How every command starts: first it names each place it will write, and each is checked there and
 * then ({@link #checkOutputs}); only when all pass does it read data, start Spark or train ({@link
 * #work}). A place that cannot be written is bad input (exit 2) naming the option, the URI and the
 * reason, found before any work rather than when the work is done.
 */
abstract class SparkNetCommand implements Callable<Integer> {
  @Override
  public final Integer call() throws Exception {
    checkOutputs(new Outputs());
    return work();
  }

  /**
   * Checks every place the command writes through {@code outputs}, keeping the paths it returns for
   * {@link #work}; a command that writes nothing checks nothing.
   */
  abstract void checkOutputs(Outputs outputs);

  /** The command itself, once every place it writes has passed; returns the exit code. */
  abstract int work() throws Exception;
}
