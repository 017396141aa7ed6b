package org.sparknet.api.internal.driver;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.spark.broadcast.Broadcast;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Destroys a round's broadcast off the driver's critical path. {@code Broadcast.destroy} makes a
 * synchronous call to the block manager master that the next round need not wait for: its own
 * broadcast has a new id. One daemon thread, in submission order; {@link #close} waits for what is
 * queued, so a closed trainer leaves no broadcast behind.
 */
public final class BroadcastReleaser implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BroadcastReleaser.class);

  private final ThreadPoolExecutor thread;

  public BroadcastReleaser(String name) {
    thread =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    // A trainer that is never closed leaves no idle thread behind for long.
    thread.allowCoreThreadTimeOut(true);
  }

  /** Queues {@code b} for destruction; a null is ignored. */
  public void release(Broadcast<?> b) {
    if (b == null) {
      return;
    }
    try {
      thread.execute(() -> destroy(b));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      destroy(b); // closed: do it here
    }
  }

  private static void destroy(Broadcast<?> b) {
    try {
      b.destroy();
    } catch (RuntimeException e) {
      // The context stopped first: its broadcasts went with it.
      LOG.debug("Broadcast {} not destroyed: {}", b.id(), e.toString());
    }
  }

  /** Waits (up to a minute) for the queued destroys. */
  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(1, TimeUnit.MINUTES)) {
        LOG.warn("Broadcasts still being destroyed after a minute; leaving them to Spark");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
