package org.sparknet.apps.data;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The data formats the CLI reads, by their {@code --format} names. */
public enum DataFormat {
  /** MNIST-style IDX files (images and labels), plain or gzip. */
  IDX("MNIST-style IDX images + labels files, plain or .gz"),
  /** CIFAR-10 binary batches: 1 label byte + 3,072 pixel bytes a record. */
  CIFAR("CIFAR-10 binary batches (.bin)"),
  /** CIFAR-100 binary batches: coarse and fine label bytes + 3,072 pixel bytes a record. */
  CIFAR100("CIFAR-100 binary batches (.bin)"),
  /** A folder with one subfolder of JPEG/PNG images per class. */
  IMAGES("a folder of class subfolders of JPEG/PNG images"),
  /** Parquet with a vector or array features column and a numeric label column. */
  PARQUET("Parquet with a vector/array features column and a label column");

  private final String description;

  DataFormat(String description) {
    this.description = description;
  }

  /** The {@code --format} name: the constant's name in lower case. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public String description() {
    return description;
  }

  /** The names {@code --format} accepts, comma-separated. */
  public static String names() {
    return Arrays.stream(values()).map(DataFormat::cliName).collect(Collectors.joining(", "));
  }

  /** The format called {@code name} (case-insensitive); otherwise an error naming every format. */
  public static DataFormat parse(String name) {
    String n = name == null ? "" : name.toLowerCase(Locale.ROOT);
    for (DataFormat f : values()) {
      if (f.cliName().equals(n)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "--format " + name + " is not a supported format; supported formats: " + names());
  }
}
