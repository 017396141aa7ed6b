package org.sparknet.apps.cli;

import java.util.ArrayList;
import java.util.List;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Ctrl-C (SIGINT) and SIGTERM ask a training run to stop after its current round, as Caffe's {@code
 * caffe train} does, instead of starting the JVM's shutdown: shutdown would run Spark's own hook,
 * which stops the SparkContext under the round. A second signal of the same kind goes to the JVM's
 * previous handler (an immediate exit), for a run that must not wait. {@link #close} reinstalls the
 * previous handlers.
 */
final class StopSignals implements AutoCloseable {
  private final List<Signal> signals = new ArrayList<>();
  private final List<SignalHandler> previous = new ArrayList<>();
  private volatile String received;

  /** Installs the handlers; where a signal cannot be handled (no such signal), it is skipped. */
  static StopSignals install() {
    StopSignals s = new StopSignals();
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        Signal sig = new Signal(name);
        int index = s.signals.size();
        SignalHandler old = Signal.handle(sig, caught -> s.onSignal(caught, index));
        s.signals.add(sig);
        s.previous.add(old);
      } catch (IllegalArgumentException e) {
        // The JVM reserves or lacks the signal (e.g. -Xrs); training then cannot be stopped
        // gracefully by it, and the JVM's own handling stays.
      }
    }
    return s;
  }

  private void onSignal(Signal caught, int index) {
    if (received != null) {
      previous.get(index).handle(caught);
      return;
    }
    received = "SIG" + caught.getName();
    System.err.println(
        "sparknet: "
            + received
            + ": stopping after this round (a snapshot is written first); send it again to stop"
            + " at once");
  }

  /** The signal that asked to stop ("SIGINT", "SIGTERM"), or null. */
  String received() {
    return received;
  }

  @Override
  public void close() {
    for (int i = 0; i < signals.size(); i++) {
      Signal.handle(signals.get(i), previous.get(i));
    }
    signals.clear();
    previous.clear();
  }
}
