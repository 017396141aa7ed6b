package org.sparknet.caffe.internal;

import java.util.List;
import org.bytedeco.cuda.global.cublas;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.cudnn;
import org.bytedeco.cuda.global.curand;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.SizeTPointer;

/**
 * Asks the CUDA runtime, through the CUDA presets, what Caffe's GPU natives will find, before Caffe
 * makes any GPU call: Caffe aborts the JVM on a failed CUDA call (its CUDA_CHECK is a glog CHECK),
 * while a missing library here is an {@link UnsatisfiedLinkError} and a missing driver or device an
 * error code. Used only when the presets' classes are on the class path (the GPU jar); the CPU jar
 * never loads this class.
 */
final class CudaProbe {
  /** The CUDA version Caffe's GPU natives (org.bytedeco:caffe:1.0-1.5.8:linux-x86_64-gpu) link. */
  static final String CUDA = "CUDA 11.8";

  static final String REDIST = "org.bytedeco:cuda:11.8-8.6-1.5.8:linux-x86_64-redist";

  /** A library libcaffe links, and the presets class whose loading needs it. */
  private record Library(Class<?> presets, String file, String what) {}

  private static final List<Library> LIBRARIES =
      List.of(
          new Library(cudart.class, "libcudart.so.11.0", "the " + CUDA + " runtime"),
          new Library(cublas.class, "libcublas.so.11", "cuBLAS of " + CUDA),
          new Library(curand.class, "libcurand.so.10", "cuRAND of " + CUDA),
          new Library(cudnn.class, "libcudnn.so.8", "cuDNN 8 (for CUDA 11)"));

  private CudaProbe() {}

  /** The devices CUDA shows this JVM, or the first thing missing on the way to them. */
  static GpuSupport probe() {
    for (Library lib : LIBRARIES) {
      try {
        Loader.load(lib.presets());
      } catch (UnsatisfiedLinkError e) {
        return GpuSupport.none(
            lib.what()
                + " is missing ("
                + lib.file()
                + " not found): install "
                + CUDA
                + " and cuDNN 8.6, or put the presets' bundled CUDA on the class path ("
                + REDIST
                + ")");
      }
    }
    int[] driver = new int[1];
    cudart.cudaDriverGetVersion(driver);
    if (driver[0] == 0) {
      return GpuSupport.none(
          "no NVIDIA driver (libcuda.so.1 not found): install the NVIDIA driver (>= 450.80.02 for "
              + CUDA
              + ")");
    }
    if (driver[0] < 11000) {
      return GpuSupport.none(
          "the NVIDIA driver supports CUDA "
              + version(driver[0])
              + " only, older than the "
              + CUDA
              + " that Caffe's GPU natives were built with: update the driver (>= 450.80.02)");
    }
    long cudnnVersion = cudnn.cudnnGetVersion();
    if (cudnnVersion / 1000 != 8) {
      return GpuSupport.none(
          "cuDNN "
              + cudnnVersion / 1000
              + "."
              + cudnnVersion % 1000 / 100
              + " was found, but Caffe's GPU natives need cuDNN 8 (built with 8.6)");
    }
    int[] count = new int[1];
    int err = cudart.cudaGetDeviceCount(count);
    if (err != cudart.cudaSuccess || count[0] == 0) {
      String visible = System.getenv("CUDA_VISIBLE_DEVICES");
      return GpuSupport.none(
          "no CUDA device is visible ("
              + (err == cudart.cudaSuccess
                  ? "0 devices"
                  : "CUDA error " + err + ": " + cudart.cudaGetErrorString(err).getString())
              + (visible == null ? "" : ", CUDA_VISIBLE_DEVICES=" + visible)
              + ")");
    }
    return new GpuSupport(count[0], null);
  }

  /** Free memory on {@code device} in bytes, or -1 when CUDA cannot tell. */
  static long freeBytes(int device) {
    if (cudart.cudaSetDevice(device) != cudart.cudaSuccess) {
      return -1;
    }
    try (SizeTPointer free = new SizeTPointer(1);
        SizeTPointer total = new SizeTPointer(1)) {
      return cudart.cudaMemGetInfo(free, total) == cudart.cudaSuccess ? free.get() : -1;
    }
  }

  private static String version(int v) {
    return v / 1000 + "." + v % 1000 / 10;
  }
}
