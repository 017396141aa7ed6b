package org.sparknet.bench.loop;

import java.util.List;
import java.util.Locale;

/** The fixed text of the scaling section: what ran, how it was counted, the load. */
final class ScalingText {
  private ScalingText() {}

  static String intro(
      String mem,
      int rounds,
      double bandwidth,
      String before,
      List<String> loads,
      List<String> ran,
      String command) {
    return String.format(
        Locale.ROOT,
        "A loopback standalone cluster (`LoopbackCluster`: a Master and one Worker on 127.0.0.1"
            + " with as many cores as the largest N), N one-core executors of %s heap, a driver JVM"
            + " of its own per N (`ScalingRounds`, -Xmx1g). The net is tiny so that the round's"
            + " fixed costs dominate: 784-100-10 (ReLU), %,d weights, M = %,d bytes in float,"
            + " batch %d, tau 1, on Fashion-MNIST images; in each mode two rounds build and warm"
            + " the nets, then %d measured rounds, the medians shown. Outside the steps: the"
            + " round's wall time less the slowest worker's solver time. Driver heap: used heap"
            + " after a full collection, the mode's trainer still open. Bytes: every byte each JVM"
            + " sent and received on TCP sockets during the round, counted by the JDK's Flight"
            + " Recorder (`jdk.SocketRead`/`jdk.SocketWrite` at threshold 0, `SocketBytes`): Spark's"
            + " RPC, broadcasts, task results and shuffles as well as SparkNet's ring and"
            + " parameter-server links, so it includes Spark's control traffic (task launches,"
            + " status updates, heartbeats) which the model leaves out. Mode `spark` is that"
            + " control traffic alone: a barrier stage of N tasks over the cached data that do"
            + " nothing, scheduled as an all-reduce round's stage is; `less Spark's own` is a"
            + " mode's bytes through the driver less the `spark` row's at the same N. `downpour`"
            + " rounds follow each other without a gap (its workers run a round ahead and push"
            + " between the driver's rounds), each window from the previous one's end, %d times as"
            + " many as the synchronous modes; pushes/s: the parameter server's applied pushes over"
            + " the window; KB per push: the driver's bytes in those windows over their"
            + " pushes.%n%n"
            + "Model (`CostModel`, sections 8 and 8b): outside the steps = o + the round's"
            + " transfers, with o fitted per mode to the smallest N's measurement (the model"
            + " holds o flat in N), B = this loopback's one-stream rate (%.2f GB/s), S = 0.53"
            + " GB/s (section 8); bytes through the driver (max(1, W/k) + a(W))·M for `plain`"
            + " (k = ⌈M / 4 MiB⌉ torrent blocks: with fewer blocks than executors, each block"
            + " leaves the driver for W/k of them before a peer holds it) and M for `allreduce`; per executor 2M for `plain` and 2·3(W−1)/W·M (sent plus received)"
            + " for `allreduce`; 2M per push (update and pull) for `downpour`.%n%n"
            + "The machine has 2 cores, so N one-core executors share them: the times say how a"
            + " round grows on an oversubscribed machine, not on N real cores; the bytes do not"
            + " depend on it. Load average %s before; after each N: %s. %s.%n%n"
            + "Command: `%s`.%n%n",
        mem,
        ScalingRounds.tinyNetWeights(),
        ScalingRounds.tinyNetWeights() * Float.BYTES,
        ScalingRounds.BATCH,
        rounds,
        ScalingRounds.ASYNC_ROUNDS_PER_ROUND,
        bandwidth / 1e9,
        before,
        String.join("; ", loads),
        String.join("; ", ran),
        command);
  }
}
