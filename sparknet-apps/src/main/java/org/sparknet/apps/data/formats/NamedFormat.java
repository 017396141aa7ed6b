package org.sparknet.apps.data.formats;

import java.io.Serializable;
import java.util.Set;
import org.sparknet.api.data.DataFormat;

/**
 * A format's name, help line, kind and settings, given once at construction. Serializable because a
 * format may travel with the tasks that read it (the Datum stores open themselves there).
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
}
