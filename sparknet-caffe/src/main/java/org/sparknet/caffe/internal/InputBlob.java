package org.sparknet.caffe.internal;

import java.nio.file.Path;

/**
 * One input blob of a phase: shape, the transform to apply after feeding, label bounds.
 *
 * <p>{@code shape} is the blob's; {@link #feedShape()} is what the feeder writes, larger than
 * {@code shape} when the transform crops ({@code crop_size}). With a crop, a mirror or a mean file
 * the feeder writes into a staging array and Caffe's DataTransformer arithmetic copies it into the
 * blob; otherwise the feeder writes into the blob and scale/mean_value apply in place.
 *
 * @param numClasses labels must lie in [0, numClasses); 0 when nothing bounds the blob
 * @param ignoreLabel a label value allowed outside the bounds (the loss's ignore_label), or null
 */
public record InputBlob(
    String name,
    String layer,
    int[] shape,
    Transform transform,
    int numClasses,
    Integer ignoreLabel) {

  /**
   * A data layer's {@code transform_param}, as the fed blob needs it.
   *
   * @param mean per-channel mean_value (one value for all channels when it has one entry), or null
   * @param feedShape what the feeder writes when it differs from the blob's shape (a crop), or null
   */
  public record Transform(
      float scale, float[] mean, int cropSize, boolean mirror, Path meanFile, int[] feedShape) {
    static final Transform NONE = new Transform(1f, null, 0, false, null, null);
  }

  /** A blob fed as it is: no transform, no label bounds. */
  static InputBlob of(String name, String layer, int[] shape) {
    return new InputBlob(name, layer, shape, Transform.NONE, 0, null);
  }

  public int[] feedShape() {
    return transform.feedShape() == null ? shape : transform.feedShape();
  }

  /** Scale or mean_value only: applied in place in the blob after feeding. */
  public boolean hasTransform() {
    return transform.scale() != 1f || transform.mean() != null;
  }

  /** A crop, a mirror or a mean file: fed through a staging array of {@link #feedShape}. */
  public boolean staged() {
    return transform.cropSize() > 0 || transform.mirror() || transform.meanFile() != null;
  }

  InputBlob withTransform(Transform t) {
    return new InputBlob(name, layer, shape, t, numClasses, ignoreLabel);
  }

  InputBlob withLabelBounds(int classes, Integer ignore) {
    return new InputBlob(name, layer, shape, transform, classes, ignore);
  }
}
