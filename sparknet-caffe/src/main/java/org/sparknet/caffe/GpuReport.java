package org.sparknet.caffe;

import java.util.List;
import org.sparknet.caffe.internal.CaffeRuntime;

/**
 * What SparkNet finds on this machine for Caffe on GPUs ({@code sparknet gpus}): the build (CPU or
 * GPU jar), the NVIDIA driver, the CUDA libraries and whether each is the one Caffe's natives link
 * or a newer one behind SparkNet's forwarding library, and every GPU with whether Caffe can run on
 * it or, in one line, why not.
 */
public final class GpuReport {
  private GpuReport() {}

  /** One finding a line. */
  public static List<String> lines() {
    return CaffeRuntime.gpuReport();
  }

  /** Whether at least one GPU can run Caffe here. */
  public static boolean anyUsable() {
    int n = CaffeRuntime.gpuCount();
    for (int id = 0; id < n; id++) {
      try {
        CaffeRuntime.checkDevice("gpu:" + id);
        return true;
      } catch (IllegalArgumentException e) {
        // this one cannot; try the next
      }
    }
    return false;
  }
}
