package org.sparknet.apps.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** One {@code SparkSubmit} child JVM (the driver, in client mode) and its log. */
public final class SparkSubmitProcess {
  private final String name;
  private final Process process;
  private final Path log;

  SparkSubmitProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
  }

  /** Waits for the driver to exit and returns its exit code; kills it after {@code timeout}. */
  public int await(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      kill();
      throw new AssertionError(
          "spark-submit '" + name + "' did not finish in " + timeout + ":\n" + output());
    }
    return process.exitValue();
  }

  /** kill -9 of the driver: what a crashed or killed driver machine looks like to the cluster. */
  public void kill() {
    ProcessTree.kill(process.toHandle(), Duration.ofSeconds(10));
  }

  /**
   * kill -9 of the driver JVM alone, at once: without listing its descendants first (a client-mode
   * driver starts none), for a kill that must land inside a write of a few milliseconds.
   */
  public void killAtOnce() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Everything the driver printed so far (stdout and stderr). */
  public String output() {
    return StandaloneCluster.read(log);
  }

  public Path log() {
    return log;
  }

  @Override
  public String toString() {
    return "spark-submit " + name + " (" + log + ")";
  }
}
