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
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.IdxDataset;
import org.sparknet.apps.data.IdxInput;

/**
 * MNIST-style IDX images, plain or gzip, with a labels file found by MNIST's naming convention or
 * given as {@link DataRequest#labelsUri()}.
 */
public final class IdxFormat implements DataFormat {
  @Override
  public String name() {
    return "idx";
  }

  @Override
  public String description() {
    return "MNIST-style IDX images + labels files, plain or .gz";
  }

  @Override
  public Kind kind() {
    return Kind.RAW;
  }

  @Override
  public DataSource open(DataRequest r) {
    StoragePath imgs = IdxInput.file(r.uri(), r.option());
    StoragePath labels = IdxInput.labels(imgs, r.labelsUri(), r.labelsOption(), r.labelsRequired());
    IdxDataset idx =
        labels == null ? IdxDataset.openUnlabelled(imgs) : IdxDataset.open(imgs, labels, 256);
    return new Source(this, idx);
  }

  private record Source(DataFormat format, IdxDataset idx) implements DataSource {
    @Override
    public long count() {
      return idx.count();
    }

    @Override
    public boolean labelled() {
      return idx.labelled();
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      return idx.sampleShape();
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      return idx.toRdd(Sources.context(spark), plan.partitions(), plan.scale());
    }
  }
}
