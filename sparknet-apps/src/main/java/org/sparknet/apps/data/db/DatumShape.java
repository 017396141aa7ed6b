package org.sparknet.apps.data.db;

import java.io.Serializable;

/**
 * The shape a {@link Datum} gives one example: channels x height x width, as Caffe's
 * DataTransformer::InferBlobShape gives it (from the Datum's fields, or from the decoded image of
 * an encoded Datum).
 */
public record DatumShape(int channels, int height, int width) implements Serializable {
  private static final long serialVersionUID = 1L;

  public DatumShape {
    if (channels < 1 || height < 1 || width < 1) {
      throw new IllegalArgumentException(
          "A Datum's shape must be positive but was " + channels + "x" + height + "x" + width);
    }
  }

  /** channels * height * width. */
  public long size() {
    return (long) channels * height * width;
  }

  @Override
  public String toString() {
    return channels + "x" + height + "x" + width;
  }
}
