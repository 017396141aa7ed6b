package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;

/**
 * Spark's own log lines about a failed task, held back while a command runs without {@code
 * --debug}: the executor's "Exception in task", the scheduler's "Lost task" and "aborting job",
 * each with the task's stack trace, and the block manager's "Putting block failed" would bury the
 * one line in which the command says why (a bad record, a column of the wrong size). The command's
 * error line carries the task's exception, so nothing is lost; {@code --debug} prints everything.
 *
 * <p>The task scheduler's "Lost executor" stays: an executor that died is news, not a stack trace.
 * Only loggers that the log4j2 configuration does not name are held back, so a user who set their
 * level sees what they asked for. Spark may load its default configuration when its session starts,
 * which drops what was added here: {@link #reapply} after the session is made adds it again. {@link
 * #close} removes what was added, for callers (the tests) that run several commands in one JVM.
 */
final class TaskFailureLogs implements AutoCloseable {
  static final List<String> LOGGERS =
      List.of(
          "org.apache.spark.executor.Executor",
          "org.apache.spark.scheduler.TaskSetManager",
          "org.apache.spark.storage.BlockManager");

  private static volatile TaskFailureLogs active;

  private final List<String> added = new ArrayList<>();
  private Configuration configuration;

  private TaskFailureLogs() {}

  /** Holds the task-failure loggers back until {@link #close}. */
  static TaskFailureLogs quiet() {
    TaskFailureLogs logs = new TaskFailureLogs();
    logs.apply();
    active = logs;
    return logs;
  }

  /** Holds them back again when the configuration changed since (a new Spark session). */
  static void reapply() {
    TaskFailureLogs logs = active;
    if (logs != null) {
      logs.apply();
    }
  }

  private synchronized void apply() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    Configuration config = ctx.getConfiguration();
    if (config == configuration) {
      return;
    }
    configuration = config;
    added.clear();
    for (String name : LOGGERS) {
      if (!config.getLoggers().containsKey(name)) {
        config.addLogger(name, new LoggerConfig(name, Level.OFF, false));
        added.add(name);
      }
    }
    ctx.updateLoggers();
  }

  /** The task-failure loggers held back now (those not named by the configuration). */
  synchronized List<String> heldBack() {
    return List.copyOf(added);
  }

  @Override
  public synchronized void close() {
    active = null;
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    if (ctx.getConfiguration() == configuration) {
      added.forEach(configuration::removeLogger);
      ctx.updateLoggers();
    }
    added.clear();
  }
}
