package org.sparknet.apps.cluster;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A child process and everything it started, killed with SIGKILL (kill -9) as a unit. */
final class ProcessTree {
  private ProcessTree() {}

  /**
   * Kills {@code root}'s descendants, then {@code root}, with SIGKILL (on Linux {@code
   * destroyForcibly} is {@code kill -9}), and waits up to {@code wait} for each to be gone.
   */
  static void kill(ProcessHandle root, Duration wait) {
    // Children first, collected before the parent dies: an orphan is re-parented and lost to us.
    List<ProcessHandle> all = root.descendants().toList();
    for (ProcessHandle p : all) {
      p.destroyForcibly();
    }
    root.destroyForcibly();
    awaitExit(root, wait);
    for (ProcessHandle p : all) {
      awaitExit(p, wait);
    }
  }

  private static void awaitExit(ProcessHandle p, Duration wait) {
    CompletableFuture<ProcessHandle> exit = p.onExit();
    try {
      exit.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // Best effort: a process that ignores SIGKILL is a zombie awaiting its parent's reap.
    }
  }

  /** Whether {@code p}'s command line contains {@code text} (for example a main class). */
  static boolean runs(ProcessHandle p, String text) {
    return p.info().commandLine().map(c -> c.contains(text)).orElse(false)
        || p.info().arguments().map(a -> String.join(" ", a).contains(text)).orElse(false);
  }
}
