package org.sparknet.apps.data.formats;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.apps.data.Hdf5Source;

/**
 * Caffe's HDF5Data layer's source: a text file listing .h5 files, each with a {@code data} and a
 * {@code label} dataset of the same first dimension, read as they are (Caffe's HDF5Data layer
 * transforms nothing).
 */
public final class Hdf5Format implements DataFormat {
  @Override
  public String name() {
    return "hdf5";
  }

  @Override
  public String description() {
    return "a list file of .h5 files with data and label datasets (Caffe's HDF5Data)";
  }

  @Override
  public Kind kind() {
    return Kind.VECTOR;
  }

  @Override
  public DataSource open(DataRequest r) {
    Sources.noLabelsFile(r, name());
    Hdf5Source s = Hdf5Source.open(Sources.existing(r), Hdf5Source.DATA, Hdf5Source.LABEL);
    return new Source(this, s);
  }

  private record Source(DataFormat format, Hdf5Source h5) implements DataSource {
    @Override
    public long count() {
      return h5.count();
    }

    @Override
    public boolean labelled() {
      return h5.labelled();
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      return h5.sampleShape();
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      return h5.toRdd(Sources.context(spark), plan.partitions(), plan.scale());
    }
  }
}
