package org.sparknet.caffe.internal;

import java.util.Map;
import org.bytedeco.javacpp.Loader;

/**
 * Which Caffe natives this JVM loads, and what GPUs they can use. The GPU jar holds both Caffe
 * builds (linux-x86_64 and linux-x86_64-gpu); JavaCPP tries the GPU one first, and when its
 * libcaffe cannot load (no CUDA libraries) it loads the CPU libcaffe under the GPU JNI wrapper, a
 * pair that aborted the JVM on the first net. So the CUDA libraries are probed first (without
 * Caffe), and when they cannot be used JavaCPP is told to load the CPU natives, whole.
 */
final class CaffeGpus {
  private static final String PLATFORM = Loader.getPlatform();
  private static final String GPU_PLATFORM = PLATFORM + "-gpu";
  private static final String EXTENSION = "platform.extension";

  /** What CUDA offers, without loading Caffe: probed once, when first asked (a holder class). */
  private static final class Cuda {
    static final GpuSupport SUPPORT = probeCuda();
  }

  /** What Caffe can use: probed once, when first asked; it loads Caffe when CUDA works. */
  private static final class Usable {
    static final GpuSupport SUPPORT = probe();
  }

  private CaffeGpus() {}

  /** Whether Caffe's GPU natives are on the class path (the GPU jar). */
  static boolean gpuBuild() {
    return CaffeGpus.class.getClassLoader().getResource("org/bytedeco/caffe/" + GPU_PLATFORM + "/")
        != null;
  }

  /** Called once, just before Caffe's natives load. */
  static void beforeLoad() {
    if (gpuBuild() && cuda().devices() == 0) {
      // JavaCPP's own switch (org.bytedeco.javacpp.platform.extension): a set extension that is
      // not "-gpu" leaves the GPU natives out. Its platform properties are read once and cached,
      // possibly already (OpenBLAS loads first), so the cached copy is set too.
      System.setProperty("org.bytedeco.javacpp." + EXTENSION, "");
      Loader.loadProperties().setProperty(EXTENSION, "");
    }
  }

  /** The GPUs Caffe can use, or why it can use none. */
  static GpuSupport support() {
    return Usable.SUPPORT;
  }

  private static GpuSupport probe() {
    GpuSupport c = cuda();
    if (c.devices() == 0) {
      return c;
    }
    CaffeRuntime.load();
    String libcaffe = null;
    for (Map.Entry<String, String> e : Loader.getLoadedLibraries().entrySet()) {
      if (e.getKey().startsWith("caffe@")) {
        libcaffe = e.getValue();
      }
    }
    if (libcaffe == null || !libcaffe.contains("/" + GPU_PLATFORM + "/")) {
      // Caffe would abort on the first GPU call ("Cannot use GPU in CPU-only Caffe").
      return GpuSupport.none(
          "the CPU-only libcaffe was loaded ("
              + libcaffe
              + ") although the GPU natives are on the class path and CUDA works: a library that"
              + " the GPU libcaffe links failed to load (run ldd on it under ~/.javacpp/cache)");
    }
    return c;
  }

  private static GpuSupport cuda() {
    return Cuda.SUPPORT;
  }

  private static GpuSupport probeCuda() {
    if (!gpuBuild()) {
      return GpuSupport.none(
          "this SparkNet build is CPU-only (its Caffe natives are "
              + PLATFORM
              + ", without CUDA): use the GPU jar, sparknet-apps-gpu/target/sparknet-apps-VERSION-gpu.jar"
              + " (bin/sparknet: SPARKNET_GPU=1)");
    }
    return CudaProbe.probe();
  }
}
