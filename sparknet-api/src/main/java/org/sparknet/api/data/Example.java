package org.sparknet.api.data;

import java.io.Serializable;
import java.util.Objects;

/**
 * One labelled example: its features in row-major order (for an image, channels x height x width)
 * and its label (a class index for classification).
 *
 * @param features the feature values; not copied
 * @param label the label
 */
public record Example(float[] features, float label) implements Serializable {
  private static final long serialVersionUID = 1L;

  public Example {
    Objects.requireNonNull(features, "features");
  }
}
