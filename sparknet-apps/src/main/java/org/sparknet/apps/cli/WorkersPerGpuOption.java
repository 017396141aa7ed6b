package org.sparknet.apps.cli;

import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import org.sparknet.api.device.GpuSharing;
import org.sparknet.api.train.TrainerConfig;
import picocli.CommandLine.Option;

/**
 * {@code --workers-per-gpu K}: K workers share each GPU where SparkNet places them itself (local
 * mode, {@code --device gpu}: partition p on GPU (p / K) mod N). On a cluster with GPU resources
 * Spark places the tasks: {@code spark.task.resource.gpu.amount} = 1/K shares each GPU among K.
 */
final class WorkersPerGpuOption {
  static final String NAME = "--workers-per-gpu";

  @Option(
      names = NAME,
      paramLabel = "K",
      description =
          "Workers sharing each GPU where SparkNet places them (local mode with --device gpu:"
              + " partition p on GPU (p / K) mod N; more than K per GPU is an error); the default"
              + " worker count is then K per visible GPU. On a cluster with GPU resources, set"
              + " spark.task.resource.gpu.amount=1/K instead. Default: 1 per GPU.")
  Integer workersPerGpu;

  /** Exit 2 for a K below 1, before anything else is read. */
  void check() {
    if (workersPerGpu != null && workersPerGpu < 1) {
      throw new IllegalArgumentException(NAME + " must be >= 1 but was " + workersPerGpu);
    }
  }

  GpuSharing sharing() {
    return workersPerGpu == null ? GpuSharing.DEFAULT : GpuSharing.of(workersPerGpu);
  }

  /** Passes K on to the trainer when it was given. */
  void apply(TrainerConfig.Builder config) {
    if (workersPerGpu != null) {
      config.optWorkersPerGpu(workersPerGpu);
    }
  }

  /**
   * The worker count of a run whose tasks run here (local mode): {@code workers} when given
   * (checked against K×N), else K per visible GPU for {@code --device gpu} (so N GPUs run N workers
   * by default), K for one named GPU ({@code gpu:N}) when K was given, else {@code slots}.
   *
   * @param slots the local task slots (0 on a cluster: then nothing is decided or checked here)
   * @throws IllegalArgumentException when more workers than K×N were asked for
   */
  int workers(NetDefinition def, Integer workers, int slots, int groupSize) {
    if (slots == 0 || !def.device().startsWith("gpu")) {
      return workers != null ? workers : slots;
    }
    int visible =
        def.device().equals("gpu") ? NetProvider.forEngine(def.engine()).visibleGpus() : groupSize;
    return workers(sharing(), def.device(), workers, slots, groupSize, visible);
  }

  /** The rule of {@link #workers(NetDefinition, Integer, int, int)}, given the visible GPUs. */
  static int workers(
      GpuSharing sharing, String device, Integer workers, int slots, int groupSize, int visible) {
    String option = NAME + " " + sharing.workersPerGpu();
    if (workers != null) {
      sharing.checkFits(workers, groupSize, visible, option);
      return workers;
    }
    if (device.equals("gpu") || sharing.given()) {
      int w = sharing.capacity(groupSize, visible);
      if (w < 1) {
        throw new IllegalArgumentException(
            option
                + ": a group of "
                + groupSize
                + " GPUs needs more than the "
                + visible
                + " visible");
      }
      return w;
    }
    return slots;
  }
}
