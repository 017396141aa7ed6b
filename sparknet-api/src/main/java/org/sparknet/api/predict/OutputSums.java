package org.sparknet.api.predict;

import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Each scalar TEST output of a net (loss, accuracy) summed over examples: every batch's value
 * counts once per example it holds (padding rows excluded). Partial sums from several partitions
 * merge; {@link #means()} divides once.
 */
public final class OutputSums implements Serializable {
  private static final long serialVersionUID = 1L;

  private final LinkedHashMap<String, Double> sums = new LinkedHashMap<>();
  private long examples;

  /** Adds one batch's outputs, weighted by the {@code fresh} examples it held. */
  public OutputSums addBatch(Map<String, Float> outputs, int fresh) {
    for (Map.Entry<String, Float> e : outputs.entrySet()) {
      sums.merge(e.getKey(), (double) e.getValue() * fresh, Double::sum);
    }
    examples += fresh;
    return this;
  }

  /** Adds another partial sum; returns this. */
  public OutputSums merge(OutputSums other) {
    other.sums.forEach((k, v) -> sums.merge(k, v, Double::sum));
    examples += other.examples;
    return this;
  }

  public long examples() {
    return examples;
  }

  /** The sums by output name, in the net's order. */
  public Map<String, Double> sums() {
    return Collections.unmodifiableMap(sums);
  }

  /** Sums read back from {@link #sums()} and {@link #examples()} (for serializers). */
  public static OutputSums of(Map<String, Double> sums, long examples) {
    OutputSums o = new OutputSums();
    o.sums.putAll(sums);
    o.examples = examples;
    return o;
  }

  /** The example-weighted mean of each output. */
  public Map<String, Float> means() {
    if (examples == 0) {
      throw new IllegalStateException("No examples were evaluated");
    }
    Map<String, Float> out = new LinkedHashMap<>();
    sums.forEach((k, v) -> out.put(k, (float) (v / examples)));
    return out;
  }
}
