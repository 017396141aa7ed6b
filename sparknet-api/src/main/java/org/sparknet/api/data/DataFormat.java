package org.sparknet.api.data;

import java.util.Set;

/**
 * One format of training data (IDX, CIFAR, an image folder, Parquet, Caffe's LMDB and LevelDB,
 * ...), found by its name through {@link DataFormats}. Implementations are listed in {@code
 * META-INF/services/org.sparknet.api.data.DataFormat}; the CLI's {@code --format}, the Java API and
 * the Spark ML stages (through {@link DataSource#toDataFrame}) all open data this way.
 */
public interface DataFormat {
  /** The name {@code --format} and {@link DataFormats#named} take, lower case. */
  String name();

  /** One line for help texts. */
  String description();

  /** How this format's examples relate to a Caffe net's data layers. */
  Kind kind();

  /**
   * The format's own settings, by the names {@link DataRequest#settings()} uses (the CLI's option
   * names without the dashes); settings of other formats are ignored.
   */
  default Set<String> settings() {
    return Set.of();
  }

  /**
   * Opens and checks the data on the driver (that it exists, its headers, listings and sizes),
   * reading no more records than it needs to learn their shape; the records themselves are read on
   * the executors by {@link DataSource#read}.
   *
   * @throws IllegalArgumentException naming the URI (and the record, file or option) at fault
   */
  DataSource open(DataRequest request);

  /** How examples relate to the net's data layers. */
  enum Kind {
    /**
     * Values as stored, times the scale: the net's data layers are fed as they are and their
     * transform does not apply (MNIST IDX bytes).
     */
    RAW,
    /**
     * Pixels, channels x height x width: a mean file is subtracted as they are read and the net's
     * transform_param (scale, mean values, crop, mirror) applies per batch, as Caffe's
     * DataTransformer does.
     */
    IMAGE,
    /** Flat vectors of a stated shape: the net's transform applies, but no mean file. */
    VECTOR
  }
}
