package org.sparknet.apps.data.formats;

import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.ReadPlan;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.IdxInput;
import org.sparknet.apps.data.ImageTransform;
import org.sparknet.apps.data.MeanImage;

/** What the formats share: opening paths named in a request, and the load-time mean transform. */
final class Sources {
  private Sources() {}

  static JavaSparkContext context(SparkSession spark) {
    return JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  /** The existing file or directory the request names. */
  static StoragePath existing(DataRequest r) {
    return IdxInput.existing(r.uri(), r.option());
  }

  /** Refuses a separate labels file, which only IDX has. */
  static void noLabelsFile(DataRequest r, String format) {
    if (r.labelsUri() != null) {
      throw new IllegalArgumentException(
          r.labelsOption() + " applies only to --format idx, not " + format);
    }
  }

  /** The plan's mean image of examples of {@code shape} (C,H,W) as a load-time transform. */
  static ImageTransform meanTransform(ReadPlan plan, List<Integer> shape) {
    if (plan.mean() == null) {
      return ImageTransform.NONE;
    }
    MeanImage m = new MeanImage(shape.get(0), shape.get(1), shape.get(2), plan.mean());
    return new ImageTransform(0, false, false, 0, m);
  }
}
