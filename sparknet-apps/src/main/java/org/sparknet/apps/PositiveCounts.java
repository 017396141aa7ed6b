package org.sparknet.apps;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The check the apps make of the counts a run is built from (workers, batch sizes, steps, units):
 * each at least 1, the error naming them all with the values given, so that one bad value is seen
 * beside the others.
 */
public final class PositiveCounts {
  private PositiveCounts() {}

  /**
   * Throws unless every one of {@code values} is at least 1.
   *
   * @param names the counts as the error names them, e.g. "workers, batch and tau"
   * @throws IllegalArgumentException "NAMES must be >= 1 (got V1, V2, ...)"
   */
  public static void require(String names, int... values) {
    if (Arrays.stream(values).anyMatch(v -> v < 1)) {
      throw new IllegalArgumentException(
          names
              + " must be >= 1 (got "
              + Arrays.stream(values).mapToObj(Integer::toString).collect(Collectors.joining(", "))
              + ")");
    }
  }
}
