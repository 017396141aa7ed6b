package org.sparknet.api.train;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run's wall-clock budget ("the best model you can in 10 minutes"). The trainer measures its pace
 * over the rounds it has run, plans the remaining solver steps to end inside the budget (a final
 * test and a margin included), sets the solver's {@code max_iter} to the planned last step so that
 * a {@code poly} learning rate reaches zero there, re-plans after every round, and stops at the
 * planned step. Plans are made in time, never in epochs: the same budget ends on time on a slow
 * machine and on a fast one, with fewer or more steps.
 *
 * @param length the budget
 * @param start when the budget began, or null: when the trainer was built (a command passes its own
 *     start, so that starting Spark and loading data count too)
 */
public record TimeBudget(Duration length, Instant start) implements Serializable {
  private static final long serialVersionUID = 1L;

  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(h|ms|m|s)");

  public TimeBudget {
    Objects.requireNonNull(length, "length");
    if (length.isNegative() || length.isZero()) {
      throw new IllegalArgumentException("A time budget must be positive but was " + length);
    }
  }

  /** {@code length}, counted from when the trainer is built. */
  public static TimeBudget of(Duration length) {
    return new TimeBudget(length, null);
  }

  /** {@code length}, counted from {@code start}. */
  public static TimeBudget since(Instant start, Duration length) {
    return new TimeBudget(length, Objects.requireNonNull(start, "start"));
  }

  /**
   * A duration as a user writes one: {@code 90s}, {@code 5m}, {@code 1h30m}, {@code 2.5m}, {@code
   * 500ms}; a bare number is seconds. {@code what} names the setting in the error.
   */
  public static Duration parseDuration(String text, String what) {
    String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    if (t.matches("\\d+(\\.\\d+)?")) {
      t = t + "s";
    }
    Matcher m = PART.matcher(t);
    double seconds = 0;
    int at = 0;
    while (m.find() && m.start() == at) {
      double v = Double.parseDouble(m.group(1));
      seconds +=
          switch (m.group(2)) {
            case "h" -> v * 3600;
            case "m" -> v * 60;
            case "ms" -> v / 1000;
            default -> v;
          };
      at = m.end();
    }
    if (t.isEmpty() || at != t.length() || !(seconds > 0)) {
      throw new IllegalArgumentException(
          what
              + " must be a positive duration such as 90s, 5m or 1h30m (a bare number is seconds)"
              + " but was '"
              + text
              + "'");
    }
    return Duration.ofNanos(Math.round(seconds * 1e9));
  }

  @Override
  public String toString() {
    return "time budget " + RoundProgress.duration(length.toNanos());
  }
}
