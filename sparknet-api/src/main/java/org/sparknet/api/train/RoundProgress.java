package org.sparknet.api.train;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * A {@link RoundListener} that prints one line per round for people watching a run (a notebook, a
 * terminal): the round out of the planned ones, epoch, iteration, loss, throughput, the validation
 * metrics when the round validated, the time since this listener was made and an estimate of the
 * time left; before the first round's line (and when a worker moves) where each worker ran ({@link
 * DeviceReport}).
 *
 * <pre>
 * round   3/10  epoch 0.60  iter    150  loss 0.6123   2,345 ex/s  val accuracy 0.8123  elapsed 0:12  ETA 0:28
 * </pre>
 *
 * The estimate assumes the rounds still to come take as long as the ones seen so far; it counts the
 * rounds left by {@code maxRounds} and by {@code maxEpochs} (at the epochs per round seen so far),
 * whichever ends sooner. Early stopping or a target metric can end the run before it.
 */
public final class RoundProgress implements RoundListener {
  private final PrintStream out;
  private final int maxRounds;
  private final double maxEpochs;
  private final LongSupplier nanoClock;
  private final long startNanos;
  private final DeviceReport devices;
  private int seen;

  /**
   * @param out where the lines go, for example {@code System.out}
   * @param maxRounds the run's round limit (counted from round 1, resumed rounds included); 0: none
   * @param maxEpochs the run's epoch limit; 0: none
   */
  public RoundProgress(PrintStream out, int maxRounds, double maxEpochs) {
    this(out, maxRounds, maxEpochs, System::nanoTime);
  }

  RoundProgress(PrintStream out, int maxRounds, double maxEpochs, LongSupplier nanoClock) {
    this.out = Objects.requireNonNull(out, "out");
    this.maxRounds = maxRounds;
    this.maxEpochs = maxEpochs;
    this.nanoClock = nanoClock;
    this.startNanos = nanoClock.getAsLong();
    this.devices = new DeviceReport(out);
  }

  @Override
  public void onRound(RoundMetrics m) {
    seen++;
    devices.onRound(m);
    out.println(line(m, nanoClock.getAsLong() - startNanos));
    out.flush();
  }

  /** The line for round {@code m}, {@code elapsedNanos} after this listener was made. */
  String line(RoundMetrics m, long elapsedNanos) {
    StringBuilder sb = lineStart(m.round(), maxRounds);
    sb.append(
        String.format(
            Locale.ROOT,
            "  epoch %.2f  iter %6d  loss %.4f  %,7.0f ex/s",
            m.epoch(),
            m.iteration(),
            m.meanLoss(),
            m.imagesPerSecond()));
    if (!m.testNets().isEmpty()) {
      sb.append("  val ").append(testNetsText(m.testNets()));
    } else if (!m.validation().isEmpty()) {
      sb.append("  val");
      for (Map.Entry<String, Float> e : new TreeMap<>(m.validation()).entrySet()) {
        sb.append(String.format(Locale.ROOT, " %s %.4f", e.getKey(), e.getValue()));
      }
    }
    return lineEnd(sb, elapsedNanos, seen, roundsLeft(m));
  }

  /**
   * Every test net's outputs, as {@code caffe train} names the nets: {@code "Test net #0
   * (test-on-train): l2_error 0.0312; Test net #1 (test-on-test): l2_error 0.0401"}.
   */
  public static String testNetsText(List<TestNetResult> nets) {
    StringBuilder sb = new StringBuilder();
    for (TestNetResult t : nets) {
      if (sb.length() > 0) {
        sb.append("; ");
      }
      sb.append(t.describe()).append(':');
      for (Map.Entry<String, Float> e : new TreeMap<>(t.outputs()).entrySet()) {
        sb.append(String.format(Locale.ROOT, " %s %.4f", e.getKey(), e.getValue()));
      }
    }
    return sb.toString();
  }

  /**
   * The start of a progress line, {@code "round 3/10"} ({@code "/10"} only when {@code maxRounds >
   * 0}), for front ends that print lines of their own (the CLI's {@code train}).
   */
  public static StringBuilder lineStart(int round, int maxRounds) {
    StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "round %3d", round));
    if (maxRounds > 0) {
      sb.append('/').append(maxRounds);
    }
    return sb;
  }

  /**
   * Ends a line begun with {@link #lineStart}: the time since the start and, when {@code roundsLeft
   * >= 0} and {@code roundsDone > 0}, the time the rounds left will take at the pace so far.
   */
  public static String lineEnd(
      StringBuilder sb, long elapsedNanos, long roundsDone, long roundsLeft) {
    sb.append("  elapsed ").append(duration(elapsedNanos));
    if (roundsLeft >= 0 && roundsDone > 0) {
      sb.append("  ETA ").append(duration(elapsedNanos / roundsDone * roundsLeft));
    }
    return sb.toString();
  }

  /** Rounds still to run by the round and epoch limits, or -1 when neither bounds the run. */
  long roundsLeft(RoundMetrics m) {
    long left = Long.MAX_VALUE;
    if (maxRounds > 0) {
      left = Math.max(0, maxRounds - m.round());
    }
    if (maxEpochs > 0 && m.epoch() > 0 && m.round() > 0) {
      double perRound = m.epoch() / m.round();
      left =
          Math.min(left, Math.max(0, (long) Math.ceil((maxEpochs - m.epoch()) / perRound - 1e-9)));
    }
    return left == Long.MAX_VALUE ? -1 : left;
  }

  /** {@code m:ss}, or {@code h:mm:ss} from an hour on. */
  static String duration(long nanos) {
    long s = Math.max(0, nanos) / 1_000_000_000L;
    return s >= 3600
        ? String.format(Locale.ROOT, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
        : String.format(Locale.ROOT, "%d:%02d", s / 60, s % 60);
  }
}
