package org.sparknet.apps.cluster;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The Spark settings that run SparkNet's executors as Kubernetes pods from the image that {@code
 * docker/Dockerfile.k8s} builds (docs/cluster-kubernetes.md): the image, the GPUs each executor
 * asks Kubernetes for, and the memory overhead that makes the pod's memory limit cover Caffe's
 * native memory, which Spark does not see. Spark turns them into the pod: {@code nvidia.com/gpu}
 * limits from the GPU amount and vendor, memory request and limit of executor memory plus overhead
 * (KubernetesPodsTest checks this through Spark's own executor pod builder).
 */
public final class KubernetesSettings {
  /** The device plugin's vendor domain: Spark asks for {@code nvidia.com/gpu} with it. */
  public static final String GPU_VENDOR = "nvidia.com";

  /** Where docker/Dockerfile.gpu copies bin/getGpusResources.sh; executors run it at start. */
  public static final String DISCOVERY_SCRIPT = "/opt/sparknet/getGpusResources.sh";

  /** The apps jar inside the images, as spark-submit names a file of the container. */
  public static final String APP_JAR = "local:///opt/sparknet/sparknet-apps.jar";

  static final String GPU_AMOUNT = "spark.executor.resource.gpu.amount";
  static final String GPU_VENDOR_KEY = "spark.executor.resource.gpu.vendor";
  static final String GPU_SCRIPT_KEY = "spark.executor.resource.gpu.discoveryScript";

  private KubernetesSettings() {}

  /**
   * The settings for executors of {@code image} with {@code gpusPerExecutor} GPUs each (0: CPU
   * only) and {@code memoryOverheadMiB} of memory outside the heap (Caffe's blobs, OpenBLAS, the
   * native libraries; docs/memory.md). With GPUs, each task (one SparkNet worker) takes one of
   * them; a {@code --group-size K} worker needs {@code spark.task.resource.gpu.amount=K} instead.
   *
   * @throws IllegalArgumentException for a blank image, fewer than 0 GPUs or a negative overhead
   */
  public static Map<String, String> executors(
      String image, int gpusPerExecutor, long memoryOverheadMiB) {
    if (image == null || image.isBlank()) {
      throw new IllegalArgumentException(
          "The executor image must be named (e.g. registry.example.com/sparknet:k8s-gpu, built"
              + " from docker/Dockerfile.k8s) but was '"
              + image
              + "'");
    }
    if (gpusPerExecutor < 0) {
      throw new IllegalArgumentException(
          "GPUs per executor must be 0 or more but was " + gpusPerExecutor);
    }
    if (memoryOverheadMiB < 0) {
      throw new IllegalArgumentException(
          "The executor memory overhead must be 0 MiB or more but was " + memoryOverheadMiB);
    }
    Map<String, String> m = new LinkedHashMap<>();
    m.put("spark.kubernetes.container.image", image);
    m.put("spark.executor.memoryOverhead", memoryOverheadMiB + "m");
    if (gpusPerExecutor > 0) {
      m.put(GPU_AMOUNT, Integer.toString(gpusPerExecutor));
      m.put(GPU_VENDOR_KEY, GPU_VENDOR);
      m.put(GPU_SCRIPT_KEY, DISCOVERY_SCRIPT);
      m.put("spark.task.resource.gpu.amount", "1");
    }
    return m;
  }

  /**
   * What a Kubernetes master needs besides what the user set ({@code given} answers a key with the
   * user's value or null): where executors ask for GPUs, the vendor (without it Spark refuses to
   * build the pod: "Resource: gpu was requested, but vendor was not specified") and the image's
   * discovery script. Nothing else: the image and the sizes are the user's to choose.
   */
  public static Map<String, String> missing(UnaryOperator<String> given) {
    Map<String, String> m = new LinkedHashMap<>();
    String gpus = given.apply(GPU_AMOUNT);
    if (gpus != null && !gpus.strip().equals("0")) {
      if (given.apply(GPU_VENDOR_KEY) == null) {
        m.put(GPU_VENDOR_KEY, GPU_VENDOR);
      }
      if (given.apply(GPU_SCRIPT_KEY) == null) {
        m.put(GPU_SCRIPT_KEY, DISCOVERY_SCRIPT);
      }
    }
    return m;
  }

  /** Whether {@code master} is a Kubernetes API server's ({@code k8s://...}). */
  public static boolean isKubernetes(String master) {
    return master != null && master.strip().startsWith("k8s://");
  }
}
