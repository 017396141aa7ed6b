package org.sparknet.apps.cli;

import java.util.List;

/** The check of a --sample-shape option, which train, test, predict, export and convert take. */
final class SampleShapes {
  private SampleShapes() {}

  /**
   * Refuses a shape with an extent below 1, before any data is read: Caffe would abort the JVM on
   * such a blob, and a converter would write no valid Datum. {@code example} is a shape that suits
   * the command, for the message.
   */
  static void check(List<Integer> shape, String example) {
    if (shape.stream().anyMatch(d -> d == null || d <= 0)) {
      throw new IllegalArgumentException(
          "--sample-shape must be positive extents like " + example + " but was " + shape);
    }
  }
}
