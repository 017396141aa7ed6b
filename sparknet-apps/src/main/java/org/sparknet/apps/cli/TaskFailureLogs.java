package org.sparknet.apps.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * Spark's own reports of a failed task, silenced while a command runs without {@code --debug}: the
 * executor logs the task's exception with its stack trace, the task set manager logs it again as a
 * lost task and then that it aborts the job, the block manager warns that the partition it was
 * caching failed, and a file writer logs that it aborts its job. The CLI reports the same failure
 * as its one line (the task's message, unwrapped from the SparkException), so those lines only bury
 * it; {@code --debug} keeps them, with the CLI's own stack trace.
 */
final class TaskFailureLogs implements AutoCloseable {
  /**
   * The loggers that print a task's failure on the driver's console (in local mode, all): the block
   * manager, too, warns that a cached partition failed, with the exception's message, and a job
   * that writes files (Parquet from Spark SQL, an RDD saved through Hadoop) logs that it aborts,
   * with the whole SparkException.
   */
  static final List<String> LOGGERS =
      List.of(
          "org.apache.spark.executor.Executor",
          "org.apache.spark.scheduler.TaskSetManager",
          "org.apache.spark.storage.BlockManager",
          "org.apache.spark.sql.execution.datasources.FileFormatWriter",
          "org.apache.spark.internal.io.SparkHadoopWriter");

  private static volatile boolean quiet;

  private final Map<String, Level> before = new LinkedHashMap<>();

  private TaskFailureLogs() {
    for (String name : LOGGERS) {
      before.put(name, LogManager.getLogger(name).getLevel());
    }
  }

  /**
   * Silences the task-failure loggers until {@link #close}, which puts back their levels; with
   * {@code debug} nothing changes.
   */
  static TaskFailureLogs quietUnless(boolean debug) {
    TaskFailureLogs logs = new TaskFailureLogs();
    quiet = !debug;
    reapply();
    return logs;
  }

  /**
   * Silences them again where Spark has just set up its logging (a Spark started without a log4j2
   * configuration loads its own defaults, which would put them back); called once a session is
   * made.
   */
  static void reapply() {
    if (quiet) {
      try {
        LOGGERS.forEach(name -> Configurator.setLevel(name, Level.OFF));
      } catch (LinkageError | ClassCastException e) {
        // Another logging back end than log4j-core: it keeps its own levels.
      }
    }
  }

  @Override
  public void close() {
    if (quiet) {
      quiet = false;
      try {
        before.forEach(Configurator::setLevel);
      } catch (LinkageError | ClassCastException e) {
        // as in reapply
      }
    }
  }
}
