package org.sparknet.caffe.internal;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.javacpp.Loader;
import org.sparknet.caffe.internal.CudaLibraries.Found;

/**
 * What this JVM finds for Caffe on GPUs, one finding a line: the build, the driver, the CUDA
 * libraries and the path each took, and every GPU with whether Caffe can run on it or why not.
 * Checking each GPU creates its context, so this is for people and checks, not for every run.
 */
final class GpuReportLines {
  private GpuReportLines() {}

  static List<String> of(GpuSupport gpus) {
    List<String> out = new ArrayList<>();
    if (!CaffeGpus.gpuBuild()) {
      out.add("build: CPU-only, Caffe's " + Loader.getPlatform() + " natives");
      out.add("gpus: none: " + gpus.problem());
      return out;
    }
    out.add("build: GPU, Caffe built for CUDA 11.8 and cuDNN 8");
    if (gpus.devices() == 0) {
      out.add("gpus: none: " + gpus.problem());
      return out;
    }
    int driver = CudaNatives.driverVersion();
    out.add("driver: CUDA " + driver / 1000 + "." + driver % 1000 / 10);
    CudaLibraries libs = gpus.chain().libraries();
    out.add(
        "runtime: "
            + libs.cudart()
            + (libs.runtimeShipped()
                ? " (CUDA 11.8's, shipped in the GPU jar)"
                : " (the machine's)"));
    for (Found f : libs.found()) {
      out.add(
          f.library().what()
              + " "
              + f.major()
              + ": "
              + f.file()
              + (f.compat()
                  ? " (compat: SparkNet's "
                      + f.library().file(f.library().linked())
                      + " forwards to it)"
                  : ""));
    }
    for (String s : gpus.chain().skipped()) {
      out.add("not preloaded: " + s);
    }
    out.add("libraries: " + gpus.libraries());
    for (int id = 0; id < gpus.devices(); id++) {
      String problem = CudaProbe.problem(id, gpus.chain());
      out.add(
          "gpu:"
              + id
              + " "
              + CudaProbe.name(id)
              + ": "
              + (problem == null
                  ? "usable, " + CudaProbe.freeBytes(id) / (1 << 20) + " MiB free"
                  : problem));
    }
    return out;
  }
}
