package org.sparknet.caffe.internal;

/**
 * What this JVM offers Caffe in GPUs: how many devices it can use, or why it can use none.
 *
 * @param devices the CUDA devices the driver shows (0 when none can be used); each is checked on
 *     its first use ({@link CaffeRuntime#checkDevice})
 * @param problem one line naming what is missing when {@code devices} is 0 (the GPU natives, the
 *     driver, a CUDA library, a device), else null
 * @param chain the CUDA libraries loaded for Caffe, or null when {@code devices} is 0
 */
public record GpuSupport(int devices, String problem, CudaChain chain) {
  static GpuSupport none(String problem) {
    return new GpuSupport(0, problem, null);
  }

  /** The libraries and the path each took ("cuBLAS 13.0 compat, cuDNN 9.14 compat"), or null. */
  public String libraries() {
    return chain == null ? null : chain.description();
  }
}
