package org.sparknet.apps.data.formats;

import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.util.LongAccumulator;
import org.sparknet.api.data.DataFormat;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.data.Example;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.data.SampleHints;
import org.sparknet.apps.data.ImageFolder;

/**
 * A folder with one subfolder of JPEG/PNG/BMP/GIF images per class (a folder of images alone,
 * unlabelled, for prediction), decoded on the executors as Caffe's convert_imageset does and
 * resized to the size the hints give.
 */
public final class ImagesFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public ImagesFormat() {
    super(
        "images",
        "a folder of class subfolders of JPEG/PNG images",
        Kind.IMAGE,
        "image-size",
        "skip-bad-images");
  }

  @Override
  DataSource openData(DataRequest r) {
    ImageFolder folder = ImageFolder.open(Sources.existing(r));
    if (r.labelsRequired() && !folder.labelled()) {
      throw new IllegalArgumentException(
          r.option()
              + " folder "
              + r.uri()
              + " has no class subfolders; training and testing need one subfolder per"
              + " class");
    }
    return new Source(this, folder, r.option());
  }

  /** H,W from the hints: the image size, the mean's size, the crop, the sample or net shape. */
  static List<Integer> imageSize(SampleHints h) {
    if (h.imageSize() != null) {
      return h.imageSize();
    } else if (h.meanShape() != null) {
      return h.meanShape().subList(1, 3);
    } else if (h.crop() > 0) {
      return List.of(h.crop(), h.crop());
    } else if (h.sampleShape() != null && h.sampleShape().size() == 3) {
      return h.sampleShape().subList(1, 3);
    } else if (h.netInputShape() != null && h.netInputShape().size() == 3) {
      return h.netInputShape().subList(1, 3);
    }
    throw new IllegalArgumentException(
        "The net's data layers do not say the image size: pass --image-size H,W (or --crop N)");
  }

  private static final class Source implements DataSource {
    private final DataFormat format;
    private final ImageFolder folder;
    private final String option;
    private LongAccumulator skipped;

    Source(DataFormat format, ImageFolder folder, String option) {
      this.format = format;
      this.folder = folder;
      this.option = option;
    }

    @Override
    public DataFormat format() {
      return format;
    }

    @Override
    public long count() {
      return folder.count() - (skipped == null ? 0 : skipped.value());
    }

    @Override
    public boolean labelled() {
      return folder.labelled();
    }

    @Override
    public List<String> classes() {
      return folder.classes();
    }

    @Override
    public List<Integer> sampleShape(SampleHints hints) {
      List<Integer> hw = imageSize(hints);
      return List.of(3, hw.get(0), hw.get(1));
    }

    @Override
    public JavaRDD<Example> read(SparkSession spark, ReadPlan plan) {
      if (plan.skipBad()) {
        skipped = spark.sparkContext().longAccumulator("undecodable images in " + option);
      }
      List<Integer> shape = List.of(3, plan.height(), plan.width());
      return folder.toRdd(
          Sources.context(spark),
          plan.partitions(),
          plan.height(),
          plan.width(),
          plan.scale(),
          Sources.meanTransform(plan, shape),
          skipped);
    }

    @Override
    public String report() {
      if (skipped == null) {
        return "";
      }
      return String.format("; %,d undecodable image(s) in %s skipped", skipped.value(), option);
    }
  }
}
