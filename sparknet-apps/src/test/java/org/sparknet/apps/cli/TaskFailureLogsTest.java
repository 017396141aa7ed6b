package org.sparknet.apps.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.junit.jupiter.api.Test;

/**
 * What {@link TaskFailureLogs} holds back, on log4j2 itself. Broken builds: adding the loggers
 * without {@code updateLoggers()} left "Lost task" at WARN ("held back ==> expected: <false> but
 * was: <true>"); a close that left the added configs behind kept Spark's task lines off for every
 * later command of the JVM ("back after close").
 */
class TaskFailureLogsTest {
  private static final String LOST_TASK = "org.apache.spark.scheduler.TaskSetManager";
  private static final String EXECUTOR = "org.apache.spark.executor.Executor";

  private static boolean warns(String logger) {
    return LogManager.getLogger(logger).isWarnEnabled();
  }

  @Test
  void theTaskFailureLoggersAreOffUntilClose() {
    assertTrue(warns(LOST_TASK), "warnings on before");
    try (TaskFailureLogs quiet = TaskFailureLogs.quiet()) {
      assertEquals(TaskFailureLogs.LOGGERS, quiet.heldBack());
      for (String name : TaskFailureLogs.LOGGERS) {
        assertFalse(LogManager.getLogger(name).isErrorEnabled(), name + " held back");
      }
      assertTrue(warns("org.apache.spark.SparkContext"), "other loggers untouched");
    }
    assertTrue(warns(LOST_TASK), "back after close");
  }

  /** A logger the configuration names keeps the level the user gave it. */
  @Test
  void aLoggerTheConfigurationNamesKeepsItsLevel() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    ctx.getConfiguration().addLogger(LOST_TASK, new LoggerConfig(LOST_TASK, Level.INFO, true));
    ctx.updateLoggers();
    try (TaskFailureLogs quiet = TaskFailureLogs.quiet()) {
      assertFalse(quiet.heldBack().contains(LOST_TASK), quiet.heldBack().toString());
      assertTrue(LogManager.getLogger(LOST_TASK).isInfoEnabled(), "the user's INFO");
      assertFalse(warns(EXECUTOR), "the others held back");
    } finally {
      ctx.getConfiguration().removeLogger(LOST_TASK);
      ctx.updateLoggers();
    }
    assertTrue(warns(EXECUTOR), "back after close");
  }

  /**
   * A configuration loaded after {@link TaskFailureLogs#quiet} (a Spark session's) is held back.
   */
  @Test
  void aNewConfigurationIsHeldBackAgain() {
    LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
    try (TaskFailureLogs quiet = TaskFailureLogs.quiet()) {
      ctx.reconfigure();
      assertTrue(warns(EXECUTOR), "a reconfiguration drops what was added");
      TaskFailureLogs.reapply();
      assertFalse(warns(EXECUTOR), "held back again");
      assertEquals(List.copyOf(TaskFailureLogs.LOGGERS), quiet.heldBack());
    }
    assertTrue(warns(EXECUTOR), "back after close");
  }
}
