package org.sparknet.api.device;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sparknet.api.NetDefinition;
import org.sparknet.api.NetProvider;
import scala.Option;

/**
 * The device each net of a Spark task runs on. A definition's device is "cpu" or "gpu:N" (used as
 * it is; a group of k solvers on "gpu:N" takes N..N+k-1), or a rule resolved here on the task's
 * executor:
 *
 * <ul>
 *   <li>"auto": the GPUs Spark assigned to the task ({@code TaskContext.resources()}, with {@code
 *       spark.task.resource.gpu.amount}), else the CPU;
 *   <li>"gpu": the GPUs Spark assigned to the task, else the engine's visible GPUs by partition, K
 *       consecutive partitions on each ({@link GpuSharing}; logged, since two executors on one
 *       machine then share GPUs); an error when no GPU is visible.
 * </ul>
 *
 * Several tasks may hold the same assigned address ({@code spark.task.resource.gpu.amount} below
 * 1): each builds its net on that address, so Spark's own sharing needs nothing more here.
 *
 * <p>A group of k solvers takes k GPUs: the task must have been assigned at least k.
 */
public final class TaskDevices {
  private static final Logger LOG = LoggerFactory.getLogger(TaskDevices.class);

  private TaskDevices() {}

  /**
   * The definition for a net on the driver, which only reads shapes and weights (and warms up): a
   * rule becomes the CPU, since the driver is often a machine without GPUs.
   */
  public static NetDefinition forDriver(NetDefinition def) {
    return def.hasConcreteDevice() ? def : def.withDevice("cpu");
  }

  /** The definition with the concrete device of the current task's one net. */
  public static NetDefinition resolve(NetDefinition def, int partition) {
    return def.hasConcreteDevice()
        ? def
        : def.withDevice(forTask(def.engine(), def.device(), partition, 1).get(0));
  }

  /** The concrete devices of the current task's {@code k} solvers, one worker per GPU. */
  public static List<String> forTask(String engine, String device, int partition, int k) {
    return forTask(engine, device, partition, k, GpuSharing.DEFAULT);
  }

  /**
   * The concrete devices of the current task's {@code k} solvers: where Spark assigned GPUs, those;
   * else, for "gpu", the visible GPUs shared as {@code sharing} says. Every training task of every
   * averaging mode comes here, through {@code WorkerRegistry}.
   */
  public static List<String> forTask(
      String engine, String device, int partition, int k, GpuSharing sharing) {
    String[] assigned = assignedGpus();
    NetProvider provider = NetProvider.forEngine(engine);
    int visible = device.equals("gpu") && assigned.length == 0 ? provider.visibleGpus() : 0;
    List<String> devices;
    try {
      devices = assign(device, partition, k, sharing, assigned, visible);
    } catch (NoGpuException e) {
      throw new IllegalArgumentException(e.getMessage() + ": " + provider.gpuProblem(), e);
    }
    if (device.equals("gpu") && assigned.length == 0) {
      LOG.warn(
          "Spark assigned no GPU to the task of partition {} (set spark.executor.resource.gpu.amount"
              + " and spark.task.resource.gpu.amount): it uses {} of {} visible GPUs, {} worker(s)"
              + " per GPU",
          partition,
          devices,
          visible,
          sharing.workersPerGpu());
    }
    return devices;
  }

  /**
   * Checks on the driver, before any net is built, that {@code workers} fit the GPUs of this JVM at
   * {@code sharing}'s K per GPU: only in local mode (the tasks run here, so the driver sees their
   * GPUs), for the rule "gpu" (which places them itself) and a K that was asked for.
   *
   * @throws IllegalArgumentException when more workers than K×N were asked for
   */
  public static void checkFits(
      boolean local, NetDefinition def, int groupSize, GpuSharing sharing, int workers) {
    if (!local || !sharing.given() || !def.device().equals("gpu")) {
      return;
    }
    int visible = NetProvider.forEngine(def.engine()).visibleGpus();
    if (visible > 0) { // none: the first task says what the engine lacks
      sharing.checkFits(workers, groupSize, visible, "workersPerGpu " + sharing.workersPerGpu());
    }
  }

  /** The addresses of the GPUs Spark assigned to the current task (none outside a task). */
  static String[] assignedGpus() {
    TaskContext tc = TaskContext.get();
    if (tc == null) {
      return new String[0];
    }
    Option<ResourceInformation> gpus = tc.resources().get("gpu");
    return gpus.isDefined() ? gpus.get().addresses() : new String[0];
  }

  /**
   * The rule itself.
   *
   * @param assigned the task's GPU addresses from Spark (empty when none)
   * @param visible the GPUs the engine sees (used by "gpu" when Spark assigned none)
   * @throws IllegalArgumentException when the task or the machine has fewer GPUs than needed
   */
  static List<String> assign(String device, int partition, int k, String[] assigned, int visible) {
    return assign(device, partition, k, GpuSharing.DEFAULT, assigned, visible);
  }

  /** The rule, with {@code sharing} placing workers where Spark assigned no GPU. */
  static List<String> assign(
      String device, int partition, int k, GpuSharing sharing, String[] assigned, int visible) {
    List<String> out = new ArrayList<>(k);
    if (device.equals("cpu") || (device.equals("auto") && assigned.length == 0)) {
      for (int i = 0; i < k; i++) {
        out.add("cpu");
      }
      return out;
    }
    if (device.startsWith("gpu:")) {
      int first = Integer.parseInt(device.substring(4));
      for (int i = 0; i < k; i++) {
        out.add("gpu:" + (first + i));
      }
      return out;
    }
    if (assigned.length > 0) {
      if (assigned.length < k) {
        throw new IllegalArgumentException(
            "The task of partition "
                + partition
                + " was assigned "
                + assigned.length
                + " GPU(s) but its group has "
                + k
                + " solvers, one per GPU; set spark.task.resource.gpu.amount="
                + k);
      }
      for (int i = 0; i < k; i++) {
        out.add("gpu:" + assigned[i]);
      }
      return out;
    }
    return byPartition(partition, k, sharing, visible);
  }

  private static List<String> byPartition(int partition, int k, GpuSharing sharing, int visible) {
    if (visible == 0) {
      throw new NoGpuException(
          "Device 'gpu' was asked for, but Spark assigned no GPU to the task of partition "
              + partition
              + " and the executor can use none (use device cpu or auto, or run on GPU"
              + " executors)");
    }
    if (k > visible) {
      throw new IllegalArgumentException(
          "A group of " + k + " solvers needs " + k + " GPUs but " + visible + " are visible");
    }
    List<String> out = new ArrayList<>(k);
    int first = sharing.firstGpu(partition, k, visible);
    for (int i = 0; i < k; i++) {
      out.add("gpu:" + ((first + i) % visible));
    }
    return out;
  }

  /** No GPU visible where "gpu" needs one; {@link #forTask} adds the engine's reason. */
  static final class NoGpuException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    NoGpuException(String message) {
      super(message);
    }
  }
}
