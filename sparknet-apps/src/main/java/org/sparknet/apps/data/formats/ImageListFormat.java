package org.sparknet.apps.data.formats;

import java.util.List;
import org.sparknet.api.data.DataRequest;
import org.sparknet.api.data.DataSource;
import org.sparknet.api.storage.StoragePath;
import org.sparknet.apps.data.ImageListSource;

/**
 * Caffe's ImageData layer's list file: {@code path label} lines, images decoded as Caffe's
 * ReadImageToCVMat does, with the layer's {@code root_folder}, {@code new_height}/{@code new_width}
 * and {@code is_color} as settings.
 */
public final class ImageListFormat extends NamedFormat {
  private static final long serialVersionUID = 1L;

  public ImageListFormat() {
    super(
        "imagelist",
        "a list file of 'path label' lines (Caffe's ImageData)",
        Kind.IMAGE,
        "root-folder",
        "new-height",
        "new-width",
        "is-color");
  }

  @Override
  DataSource openData(DataRequest r) {
    StoragePath list = Sources.existing(r);
    ImageListSource s =
        ImageListSource.open(
            list,
            r.setting("root-folder", ""),
            number(r, "new-height"),
            number(r, "new-width"),
            Boolean.parseBoolean(r.setting("is-color", "true")));
    List<Integer> shape = s.sampleShape();
    return new ShardedSource(
        this,
        s.count(),
        s.labelled(),
        shape,
        (sc, plan) ->
            s.toRdd(sc, plan.partitions(), plan.scale(), Sources.meanTransform(plan, shape)));
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
}
