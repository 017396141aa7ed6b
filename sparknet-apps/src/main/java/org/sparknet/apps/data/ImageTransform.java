package org.sparknet.apps.data;

import java.io.Serializable;
import java.util.SplittableRandom;

/**
 * Caffe's {@code transform_param} done once, at load time, on one CHW image: the mean image ({@code
 * mean_file}) and optionally {@code crop_size} and {@code mirror}. The CLI's loaders use it for the
 * mean image only: crops and flips belong to the net, where CaffeNet draws them anew for every
 * batch as Caffe does. Load-time crops serve engines without native transforms; their offset and
 * flip are drawn once per image from (seed, image index), in TRAIN at random and in TEST centred
 * and unflipped, so the augmentation does not change between epochs.
 *
 * <p>The mean image is subtracted before cropping, as Caffe does.
 *
 * @param cropSize side of the square crop, 0 for none
 * @param mirror whether images may be flipped left-right (TRAIN only)
 * @param train TRAIN (random crop and flip) or TEST (centre crop, no flip)
 * @param seed seeds the per-image draws
 * @param mean the mean image to subtract before cropping, or null
 */
public record ImageTransform(int cropSize, boolean mirror, boolean train, long seed, MeanImage mean)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** No crop and no flip. */
  public static final ImageTransform NONE = new ImageTransform(0, false, false, 0);

  public ImageTransform {
    if (cropSize < 0) {
      throw new IllegalArgumentException("crop size must be >= 0 but was " + cropSize);
    }
  }

  /** Without a mean image. */
  public ImageTransform(int cropSize, boolean mirror, boolean train, long seed) {
    this(cropSize, mirror, train, seed, null);
  }

  /** This transform for the other phase (same crop, seed, mirror setting and mean). */
  public ImageTransform forPhase(boolean isTrain) {
    return new ImageTransform(cropSize, mirror, isTrain, seed, mean);
  }

  /** Height and width after the transform, given the image's. */
  public int outHeight(int height) {
    return cropSize > 0 ? cropSize : height;
  }

  public int outWidth(int width) {
    return cropSize > 0 ? cropSize : width;
  }

  /** Throws unless an image of {@code height x width} can be cropped; {@code what} names it. */
  public void check(int height, int width, String what) {
    if (cropSize > height || cropSize > width) {
      throw new IllegalArgumentException(
          "crop_size "
              + cropSize
              + " is larger than the "
              + height
              + "x"
              + width
              + " images of "
              + what
              + "; resize them larger (--image-size) or crop less (--crop)");
    }
  }

  /**
   * Transforms one image ({@code channels x height x width} floats, row-major) with the draws of
   * image {@code index}; returns {@code src} itself when there is nothing to do. A mean image is
   * subtracted from {@code src} in place.
   */
  public float[] apply(float[] src, int channels, int height, int width, long index) {
    if (mean != null) {
      mean.subtractFrom(src);
    }
    boolean flip = false;
    int h0;
    int w0;
    int oh = outHeight(height);
    int ow = outWidth(width);
    if (train) {
      SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + index);
      h0 = rnd.nextInt(height - oh + 1);
      w0 = rnd.nextInt(width - ow + 1);
      flip = mirror && rnd.nextBoolean();
    } else {
      h0 = (height - oh) / 2;
      w0 = (width - ow) / 2;
    }
    if (!flip && oh == height && ow == width) {
      return src;
    }
    float[] out = new float[channels * oh * ow];
    for (int c = 0; c < channels; c++) {
      for (int y = 0; y < oh; y++) {
        int srcRow = (c * height + h0 + y) * width + w0;
        int dstRow = (c * oh + y) * ow;
        if (flip) {
          for (int x = 0; x < ow; x++) {
            out[dstRow + x] = src[srcRow + ow - 1 - x];
          }
        } else {
          System.arraycopy(src, srcRow, out, dstRow, ow);
        }
      }
    }
    return out;
  }
}
