package org.sparknet.apps.cli;

/** A text progress bar such as {@code [######--------------]}. */
final class ProgressBar {
  private ProgressBar() {}

  static String render(long done, long total, int width) {
    int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
    return "[" + "#".repeat(filled) + "-".repeat(width - filled) + "]";
  }
}
