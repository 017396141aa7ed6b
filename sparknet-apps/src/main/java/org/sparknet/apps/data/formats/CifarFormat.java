package org.sparknet.apps.data.formats;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.CifarDataset;
import org.sparknet.apps.data.CifarFile;
import org.sparknet.apps.data.IdxInput;

/**
 * CIFAR-10 binary batches (one or several files, comma-separated); {@link Cifar100Format} is the
 * CIFAR-100 variant. Channels stay in the files' R,G,B order, as Caffe's convert_cifar_data keeps
 * them.
 */
public class CifarFormat implements DataFormat {
  @Override
  public String name() {
    return "cifar";
  }

  @Override
  public String description() {
    return "CIFAR-10 binary batches (.bin)";
  }

  @Override
  public Kind kind() {
    return Kind.IMAGE;
  }

  CifarFile.Variant variant() {
    return CifarFile.Variant.CIFAR10;
  }

  boolean coarse(DataRequest r) {
    return false;
  }

  @Override
  public DataSource open(DataRequest r) {
    Sources.noLabelsFile(r, name());
    List<StoragePath> files = new ArrayList<>();
    for (String part : r.uri().split(",")) {
      files.add(IdxInput.file(part.strip(), r.option()));
    }
    return new Source(this, CifarDataset.openAt(files, variant(), coarse(r)));
  }

  private record Source(DataFormat format, CifarDataset cifar) implements DataSource {
    @Override
    public long count() {
      return cifar.count();
    }

    @Override
    public boolean labelled() {
      return true;
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      return CifarDataset.sampleShape();
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      return cifar.toRdd(
          Sources.context(spark),
          plan.partitions(),
          plan.scale(),
          Sources.meanTransform(plan, CifarDataset.sampleShape()));
    }
  }

  /** CIFAR-100: the fine label (100 classes) or, with {@code cifar100-label=coarse}, the coarse. */
  public static final class Cifar100Format extends CifarFormat {
    @Override
    public String name() {
      return "cifar100";
    }

    @Override
    public String description() {
      return "CIFAR-100 binary batches (.bin)";
    }

    @Override
    public Set<String> settings() {
      return Set.of("cifar100-label");
    }

    @Override
    CifarFile.Variant variant() {
      return CifarFile.Variant.CIFAR100;
    }

    @Override
    boolean coarse(DataRequest r) {
      String label = r.setting("cifar100-label", "fine");
      if (!label.equals("fine") && !label.equals("coarse")) {
        throw new IllegalArgumentException(
            "--cifar100-label must be fine or coarse but was '" + label + "'");
      }
      return label.equals("coarse");
    }
  }
}
