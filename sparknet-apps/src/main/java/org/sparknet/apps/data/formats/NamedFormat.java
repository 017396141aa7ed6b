package org.sparknet.apps.data.formats;

import java.io.Serializable;
import java.util.Set;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;

/**
 * A format's name, help line, kind and settings, given once at construction, and the refusal of a
 * labels file that only IDX takes. Serializable because a format may travel with the tasks that
 * read it (the Datum stores open themselves there).
 */
abstract class NamedFormat implements DataFormat, Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final String description;
  private final Kind kind;
  private final Set<String> settings;

  NamedFormat(String name, String description, Kind kind, String... settings) {
    this.name = name;
    this.description = description;
    this.kind = kind;
    this.settings = Set.of(settings);
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String description() {
    return description;
  }

  @Override
  public final Kind kind() {
    return kind;
  }

  @Override
  public final Set<String> settings() {
    return settings;
  }

  /** Refuses a separate labels file where the format takes none (all but IDX), then opens. */
  @Override
  public final DataSource open(DataRequest r) {
    if (!takesLabelsFile()) {
      Sources.noLabelsFile(r, name);
    }
    return openData(r);
  }

  /** Whether {@link DataRequest#labelsUri()} may name a labels file of its own. */
  boolean takesLabelsFile() {
    return false;
  }

  /** {@link #open}, once a labels file the format does not take has been refused. */
  abstract DataSource openData(DataRequest r);
}
