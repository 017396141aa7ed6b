package org.sparknet.apps.data.formats;

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
import org.sparknet.apps.data.ImageListSource;

/**
 * Caffe's ImageData layer's list file: {@code path label} lines, images decoded as Caffe's
 * ReadImageToCVMat does, with the layer's {@code root_folder}, {@code new_height}/{@code new_width}
 * and {@code is_color} as settings.
 */
public final class ImageListFormat implements DataFormat {
  @Override
  public String name() {
    return "imagelist";
  }

  @Override
  public String description() {
    return "a list file of 'path label' lines (Caffe's ImageData)";
  }

  @Override
  public Kind kind() {
    return Kind.IMAGE;
  }

  @Override
  public Set<String> settings() {
    return Set.of("root-folder", "new-height", "new-width", "is-color");
  }

  @Override
  public DataSource open(DataRequest r) {
    Sources.noLabelsFile(r, name());
    StoragePath list = Sources.existing(r);
    ImageListSource s =
        ImageListSource.open(
            list,
            r.setting("root-folder", ""),
            number(r, "new-height"),
            number(r, "new-width"),
            Boolean.parseBoolean(r.setting("is-color", "true")));
    return new Source(this, s);
  }

  private static int number(DataRequest r, String name) {
    String v = r.setting(name, "0");
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          r.option() + ": " + name.replace('-', '_') + " must be a number but is '" + v + "'", e);
    }
  }

  private record Source(DataFormat format, ImageListSource list) implements DataSource {
    @Override
    public long count() {
      return list.count();
    }

    @Override
    public boolean labelled() {
      return list.labelled();
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      return list.sampleShape();
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      return list.toRdd(
          Sources.context(spark),
          plan.partitions(),
          plan.scale(),
          Sources.meanTransform(plan, list.sampleShape()));
    }
  }
}
