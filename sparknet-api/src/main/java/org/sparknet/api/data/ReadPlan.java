package org.sparknet.api.data;

/**
 * How to read a {@link DataSource} on the executors.
 *
 * @param partitions the number of partitions wanted (a format may give fewer when it has fewer
 *     records)
 * @param scale every value is multiplied by it (Caffe's transform_param scale for RAW formats, 1
 *     otherwise: the net scales)
 * @param height the height images are resized to, 0 where the format fixes it
 * @param width the width images are resized to, 0 where the format fixes it
 * @param mean the mean image to subtract from every example as it is read (channels x height x
 *     width, the examples' own size), or null
 * @param skipBad whether undecodable records are skipped and counted ({@link DataSource#report()})
 *     instead of failing the job
 */
public record ReadPlan(
    int partitions, float scale, int height, int width, float[] mean, boolean skipBad) {
  public ReadPlan {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1 but was " + partitions);
    }
  }

  /** {@code partitions} partitions of the values as stored. */
  public static ReadPlan of(int partitions) {
    return new ReadPlan(partitions, 1f, 0, 0, null, false);
  }
}
