package org.sparknet.api.train;

import java.util.Locale;
import org.sparknet.api.internal.driver.PackedData;
import org.sparknet.api.internal.driver.TrainerState;

/**
 * The one-line text of a {@link SparkNetTrainer} ({@link SparkNetTrainer#toString()}): net,
 * workers, schedule, averaging, progress and data sizes, as notebooks show it. Apart from the
 * trainer, as {@link ConfigSummary} is from the config, so that the trainer drives the run and this
 * class says how it reads.
 */
final class TrainerSummary {
  private TrainerSummary() {}

  /**
   * The line of a trainer of net {@code net} with run {@code state}, {@code workers} workers,
   * schedule {@code tau} ({@code RoundPlan.tauText()}) and rule {@code averaging}; {@code training}
   * null before the training data is set.
   */
  static String of(
      String net,
      TrainerState state,
      int workers,
      String tau,
      Averaging averaging,
      PackedData training,
      boolean closed) {
    return String.format(
        Locale.ROOT,
        "SparkNetTrainer{net '%s', %,d parameters, %d workers, tau=%s, %s, round %d, iteration %d,"
            + " training examples %s%s}",
        net,
        state.layout().size(),
        workers,
        tau,
        averaging,
        state.round(),
        state.iteration(),
        training == null ? "not set" : String.format("%,d", training.total()),
        closed ? ", closed" : "");
  }
}
