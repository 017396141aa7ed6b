package org.sparknet.api.data;

import java.util.List;

/**
 * What a format that does not fix the size of its examples (an image folder, Parquet) goes by, in
 * this order of precedence: an explicit image size, the mean image, the crop, an explicit sample
 * shape, the net's input shape. Any of them may be null (the crop 0).
 *
 * @param imageSize H,W to resize images to
 * @param meanShape C,H,W of the mean image
 * @param crop the crop size, 0 for none
 * @param sampleShape the shape of one example as given by the user
 * @param netInputShape the shape the net's data layer declares, C,H,W
 */
public record SampleHints(
    List<Integer> imageSize,
    List<Integer> meanShape,
    int crop,
    List<Integer> sampleShape,
    List<Integer> netInputShape) {
  /** No hints. */
  public static final SampleHints NONE = new SampleHints(null, null, 0, null, null);
}
