package org.sparknet.apps.data.formats;

import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.apps.data.Hdf5Source;

/**
 * Caffe's HDF5Data layer's source: a text file listing .h5 files, each with a {@code data} and a
 * {@code label} dataset of the same first dimension, read as they are (Caffe's HDF5Data layer
 * transforms nothing).
 */
public final class Hdf5Format extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public Hdf5Format() {
    super(
        "hdf5",
        "a list file of .h5 files with data and label datasets (Caffe's HDF5Data)",
        Kind.VECTOR);
  }

  @Override
  DataSource openData(DataRequest r) {
    Hdf5Source h5 = Hdf5Source.open(Sources.existing(r), Hdf5Source.DATA, Hdf5Source.LABEL);
    return ShardedSource.of(this, h5);
  }
}
