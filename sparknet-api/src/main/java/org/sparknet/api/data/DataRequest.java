package org.sparknet.api.data;

import java.util.Map;
import java.util.Objects;

/**
 * What to open: the data's URI and how to name it in messages, an optional separate labels file,
 * whether labels are required, and the format's settings.
 *
 * @param uri the data: a Hadoop URI or a plain path (some formats take several, comma-separated)
 * @param option how messages name the data, e.g. "--train"
 * @param labelsUri a separate labels file (IDX), or null
 * @param labelsOption how messages name the labels file, e.g. "--train-labels"
 * @param labelsRequired false for prediction on unlabelled data
 * @param settings the format's own settings ({@link DataFormat#settings()}), by name
 */
public record DataRequest(
    String uri,
    String option,
    String labelsUri,
    String labelsOption,
    boolean labelsRequired,
    Map<String, String> settings) {
  public DataRequest {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(option, "option");
    settings = Map.copyOf(settings);
  }

  /** Labelled data at {@code uri}, with no settings. */
  public static DataRequest of(String uri) {
    return new DataRequest(uri, uri, null, null, true, Map.of());
  }

  /** This request with {@code name} set to {@code value}. */
  public DataRequest with(String name, String value) {
    java.util.HashMap<String, String> s = new java.util.HashMap<>(settings);
    s.put(name, value);
    return new DataRequest(uri, option, labelsUri, labelsOption, labelsRequired, s);
  }

  /** The setting called {@code name}, or {@code dflt}. */
  public String setting(String name, String dflt) {
    return settings.getOrDefault(name, dflt);
  }
}
