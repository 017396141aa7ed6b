package org.sparknet.caffe.internal;

/**
 * What this JVM offers Caffe in GPUs: how many devices it can use, or why it can use none.
 *
 * @param devices the CUDA devices Caffe can use (0 when none)
 * @param problem one line naming what is missing when {@code devices} is 0 (the GPU natives, a CUDA
 *     library, the driver, a device), else null
 */
public record GpuSupport(int devices, String problem) {
  static GpuSupport none(String problem) {
    return new GpuSupport(0, problem);
  }
}
