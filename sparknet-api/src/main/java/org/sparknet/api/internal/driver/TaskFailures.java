package org.sparknet.api.internal.driver;

/**
 * Turns a failed Spark job into the exception the caller should see: a data error inside a task
 * ({@link IllegalArgumentException}, however deeply Spark wrapped it) comes back as an {@code
 * IllegalArgumentException} with the task's message, so that bad input reads the same from a task
 * as from the driver.
 */
public final class TaskFailures {
  private TaskFailures() {}

  public static RuntimeException unwrap(Exception e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof IllegalArgumentException iae) {
        return c == e ? iae : new IllegalArgumentException(iae.getMessage(), e);
      }
    }
    return e instanceof RuntimeException re ? re : new IllegalStateException(e.getMessage(), e);
  }
}
