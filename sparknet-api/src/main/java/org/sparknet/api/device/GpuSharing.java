package org.sparknet.api.device;

import java.io.Serializable;

/**
 * How many workers share one GPU when SparkNet places workers on the visible GPUs itself (Spark
 * assigned the task none: local mode, or a cluster without GPU resources): partition p runs on GPU
 * {@code (p / K) mod N} of N visible, so that K consecutive partitions share each GPU. Where Spark
 * assigns GPUs, its own sharing decides ({@code spark.task.resource.gpu.amount} 1/K gives K tasks
 * the same address), and this is not used.
 *
 * @param workersPerGpu K, 1 or more
 * @param given whether K was asked for: then a partition beyond K×N is an error, since it would put
 *     more than K workers on a GPU; without it (K = 1) partitions wrap round the GPUs, as
 *     round-robin always did
 */
public record GpuSharing(int workersPerGpu, boolean given) implements Serializable {
  private static final long serialVersionUID = 1L;

  /** One worker per GPU, wrapping round when there are more partitions than GPUs. */
  public static final GpuSharing DEFAULT = new GpuSharing(1, false);

  public GpuSharing {
    if (workersPerGpu < 1) {
      throw new IllegalArgumentException(
          "workersPerGpu (workers sharing each GPU) must be >= 1 but was " + workersPerGpu);
    }
  }

  /**
   * K workers on each GPU, asked for by the user.
   *
   * @throws IllegalArgumentException when {@code k} is below 1
   */
  public static GpuSharing of(int k) {
    return new GpuSharing(k, true);
  }

  /** The same K without the limit (test nets, whose partitions are not the trainer's workers). */
  public GpuSharing uncapped() {
    return new GpuSharing(workersPerGpu, false);
  }

  /**
   * The first of the {@code groupSize} consecutive GPUs (of {@code visible}) partition {@code
   * partition}'s worker takes: slot {@code partition / K}, each slot {@code groupSize} GPUs on.
   *
   * @throws IllegalArgumentException when K was given and the partition has no slot left
   */
  public int firstGpu(int partition, int groupSize, int visible) {
    int slot = partition / workersPerGpu;
    if (given && (long) (slot + 1) * groupSize > visible) {
      throw new IllegalArgumentException(tooMany(partition + 1, groupSize, visible));
    }
    return (int) ((long) slot * groupSize % visible);
  }

  /**
   * The workers this sharing can place on {@code visible} GPUs without putting more than K on one:
   * K for each group of {@code groupSize} GPUs.
   */
  public int capacity(int groupSize, int visible) {
    return workersPerGpu * (visible / Math.max(1, groupSize));
  }

  /**
   * Checks, before anything is built, that {@code workers} fit: only when K was given.
   *
   * @param option how the user gave K (named in the message)
   * @throws IllegalArgumentException when more workers than K×N were asked for
   */
  public void checkFits(int workers, int groupSize, int visible, String option) {
    if (given && workers > capacity(groupSize, visible)) {
      throw new IllegalArgumentException(option + ": " + tooMany(workers, groupSize, visible));
    }
  }

  private String tooMany(int workers, int groupSize, int visible) {
    return workers
        + " workers"
        + (groupSize > 1 ? " of " + groupSize + " GPUs each" : "")
        + " do not fit "
        + workersPerGpu
        + " per GPU on "
        + visible
        + " visible GPU(s): at most "
        + capacity(groupSize, visible)
        + "; raise the workers per GPU or lower the workers";
  }
}
