package org.sparknet.api.data;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * The {@link DataFormat}s on the class path, by name, in the order their service files list them.
 */
public final class DataFormats {
  private static volatile List<DataFormat> formats;

  private DataFormats() {}

  /** Every format found, in service-file order. */
  public static List<DataFormat> all() {
    List<DataFormat> f = formats;
    if (f == null) {
      List<DataFormat> found = new ArrayList<>();
      for (DataFormat d :
          ServiceLoader.load(DataFormat.class, DataFormats.class.getClassLoader())) {
        found.add(d);
      }
      f = List.copyOf(found);
      formats = f;
    }
    return f;
  }

  /** The names {@code --format} accepts, comma-separated. */
  public static String names() {
    return all().stream().map(DataFormat::name).collect(Collectors.joining(", "));
  }

  /** The format called {@code name} (case-insensitive); otherwise an error naming every format. */
  public static DataFormat named(String name) {
    String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
    for (DataFormat f : all()) {
      if (f.name().equals(n)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "--format " + name + " is not a supported format; supported formats: " + names());
  }
}
