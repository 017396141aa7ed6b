package org.sparknet.api.train;

import java.util.Locale;
import java.util.Map;

/**
 * What one training round did and where its time went.
 *
 * @param round 1-based round number (continues across a resume from a checkpoint)
 * @param iteration solver steps each worker has run so far (the most of any worker when tau is
 *     given in seconds)
 * @param examples examples the workers trained on in this round (batch rows, wrapped ones
 *     included); empty partitions count nothing
 * @param meanLoss example-weighted mean of the workers' training loss over the round
 * @param validation mean of each test output over the validation set when this round validated,
 *     else empty
 * @param imagesPerSecond examples / wall time
 * @param computeMillis the slowest worker's solver time (the critical path)
 * @param broadcastMillis driver broadcast, plus the slowest worker's time to read it, build its net
 *     the first time and set the weights
 * @param aggregateMillis the slowest worker's time to copy its weights out, plus the driver's time
 *     to combine the results
 * @param schedulingMillis wall time minus the three above: task launch, serialization, transfer
 * @param wallMillis the round's wall time on the driver, validation excluded
 * @param validationMillis time spent validating after the round (0 when it did not)
 */
public record RoundMetrics(
    int round,
    long iteration,
    long examples,
    double meanLoss,
    Map<String, Float> validation,
    double imagesPerSecond,
    long computeMillis,
    long broadcastMillis,
    long aggregateMillis,
    long schedulingMillis,
    long wallMillis,
    long validationMillis) {

  public RoundMetrics {
    validation = Map.copyOf(validation);
  }

  /** The round as one line of JSON (no newline). */
  public String toJson() {
    StringBuilder sb = new StringBuilder("{");
    sb.append("\"round\":").append(round);
    sb.append(",\"iteration\":").append(iteration);
    sb.append(",\"examples\":").append(examples);
    sb.append(",\"meanLoss\":").append(number(meanLoss));
    sb.append(",\"imagesPerSecond\":").append(number(imagesPerSecond));
    sb.append(",\"computeMillis\":").append(computeMillis);
    sb.append(",\"broadcastMillis\":").append(broadcastMillis);
    sb.append(",\"aggregateMillis\":").append(aggregateMillis);
    sb.append(",\"schedulingMillis\":").append(schedulingMillis);
    sb.append(",\"wallMillis\":").append(wallMillis);
    sb.append(",\"validationMillis\":").append(validationMillis);
    sb.append(",\"validation\":{");
    boolean first = true;
    for (Map.Entry<String, Float> e : new java.util.TreeMap<>(validation).entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append('"').append(escape(e.getKey())).append("\":").append(number(e.getValue()));
    }
    return sb.append("}}").toString();
  }

  /** A one-line human summary, as the trainer logs it. */
  public String summary() {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "round %d it %d loss %.4f %.0f img/s (compute %d ms, broadcast %d ms,"
                    + " aggregate %d ms, scheduling %d ms)",
                round,
                iteration,
                meanLoss,
                imagesPerSecond,
                computeMillis,
                broadcastMillis,
                aggregateMillis,
                schedulingMillis));
    for (Map.Entry<String, Float> e : new java.util.TreeMap<>(validation).entrySet()) {
      sb.append(String.format(Locale.ROOT, " val %s %.4f", e.getKey(), e.getValue()));
    }
    return sb.toString();
  }

  private static String number(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "null";
  }

  private static String escape(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }
}
