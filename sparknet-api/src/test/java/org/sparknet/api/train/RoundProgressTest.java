package org.sparknet.api.train;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The round lines of {@link RoundProgress} with a clock the test moves. Broken on purpose: dividing
 * the elapsed time by the round number instead of the rounds this listener saw made the resumed
 * run's ETA 0:20 instead of 1:40; taking the larger of the round and epoch limits' rounds left gave
 * 14 rounds where the epoch limit leaves 2.
 */
class RoundProgressTest {
  private static final long SECOND = 1_000_000_000L;

  private static RoundMetrics round(int r, double epoch, Map<String, Float> validation) {
    return RoundMetrics.builder()
        .round(r)
        .iteration(50L * r)
        .examples(3200)
        .epoch(epoch)
        .meanLoss(0.61234)
        .validation(validation)
        .timings(new RoundMetrics.Timings(0, 0, 0, 0, 1600, 0))
        .build();
  }

  @Test
  void linesShowProgressElapsedTimeAndEta() {
    AtomicLong clock = new AtomicLong(100 * SECOND);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RoundProgress p =
        new RoundProgress(new PrintStream(bytes, true, StandardCharsets.UTF_8), 10, 0, clock::get);
    clock.addAndGet(4 * SECOND);
    p.onRound(round(1, 0.2, Map.of()));
    clock.addAndGet(6 * SECOND);
    p.onRound(round(2, 0.4, Map.of("loss", 0.5f, "accuracy", 0.8123f)));
    assertEquals(
        "round   1/10  epoch 0.20  iter     50  loss 0.6123    2,000 ex/s  elapsed 0:04  ETA 0:36\n"
            + "round   2/10  epoch 0.40  iter    100  loss 0.6123    2,000 ex/s  val accuracy"
            + " 0.8123 loss 0.5000  elapsed 0:10  ETA 0:40\n",
        bytes.toString(StandardCharsets.UTF_8));
  }

  @Test
  void etaCountsTheRoundsThisRunHasLeftByRoundsOrEpochs() {
    AtomicLong clock = new AtomicLong();
    PrintStream none = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    // Resumed at round 5 of 10: one round seen in 20 s, five left.
    RoundProgress resumed = new RoundProgress(none, 10, 0, clock::get);
    clock.addAndGet(20 * SECOND);
    resumed.onRound(round(5, 1.0, Map.of()));
    assertEquals(5, resumed.roundsLeft(round(5, 1.0, Map.of())));
    assertEquals(
        "elapsed 0:20  ETA 1:40", times(resumed.line(round(5, 1.0, Map.of()), 20 * SECOND)));
    // 0.25 epochs a round, 2 epochs: 8 rounds in all, so 2 left after round 6, before maxRounds.
    RoundProgress epochs = new RoundProgress(none, 20, 2.0, clock::get);
    epochs.onRound(round(6, 1.5, Map.of()));
    assertEquals(2, epochs.roundsLeft(round(6, 1.5, Map.of())));
    assertEquals(
        "elapsed 1:00  ETA 2:00", times(epochs.line(round(6, 1.5, Map.of()), 60 * SECOND)));
    // Nothing bounds the run (target metric or early stopping only): no ETA.
    RoundProgress open = new RoundProgress(none, 0, 0, clock::get);
    open.onRound(round(3, 0.5, Map.of()));
    assertEquals(-1, open.roundsLeft(round(3, 0.5, Map.of())));
    assertEquals(
        "round   3  epoch 0.50  iter    150  loss 0.6123    2,000 ex/s  elapsed 1:05",
        open.line(round(3, 0.5, Map.of()), 65 * SECOND));
    assertEquals("1:01:05", RoundProgress.duration(3665 * SECOND));
  }

  private static String times(String line) {
    return line.substring(line.indexOf("elapsed"));
  }
}
