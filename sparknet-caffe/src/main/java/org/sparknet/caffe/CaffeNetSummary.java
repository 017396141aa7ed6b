package org.sparknet.caffe;

import java.util.Locale;
import org.sparknet.api.Net;
import org.sparknet.api.Phase;
import org.sparknet.caffe.internal.LearnableParams;

/**
 * The text of an open {@link CaffeNet}'s {@code toString()}: what a notebook user wants to see of a
 * net, its inputs, learnable layers, size and training state.
 */
final class CaffeNetSummary {
  private CaffeNetSummary() {}

  /**
   * Renders {@code net} (open), whose solver of type {@code solverType} on {@code device} is at
   * {@code iteration}, with its learnable {@code params}.
   */
  static String of(
      Net net, String solverType, String device, int iteration, LearnableParams params) {
    StringBuilder sb = new StringBuilder("CaffeNet '").append(net.name()).append("'");
    sb.append(
        String.format(
            Locale.ROOT,
            " (%s solver, %s, iteration %d): %,d parameters\n",
            solverType,
            device,
            iteration,
            params.total()));
    sb.append("  inputs (train) ").append(net.inputShapes(Phase.TRAIN)).append('\n');
    sb.append("  inputs (test)  ").append(net.inputShapes(Phase.TEST)).append('\n');
    for (int k = 1; k < net.testNetCount(); k++) {
      sb.append("  inputs (").append(net.describeTestNet(k)).append(") ");
      sb.append(net.testInputShapes(k)).append('\n');
    }
    sb.append(params.sizesByLayer());
    return sb.toString();
  }
}
