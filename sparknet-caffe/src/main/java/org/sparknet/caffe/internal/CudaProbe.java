package org.sparknet.caffe.internal;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Finds out, before Caffe makes any GPU call, whether Caffe's GPU natives can run here: Caffe
 * aborts the JVM on a failed CUDA, cuBLAS or cuDNN call (its CHECK macros), so each way this can
 * fail is asked first through SparkNet's own JNI probe ({@link CudaNatives}), which opens the
 * driver and the libraries with dlopen and cannot abort: the driver and its version, the devices,
 * the libraries ({@link CudaLibraries}, loaded by {@link CudaChain}), and per device its compute
 * capability, whether the driver can compile Caffe's kernels for it, and whether cuBLAS, cuDNN and
 * cuRAND can create their handles on it. Used only in the GPU build; the CPU jar never loads it.
 */
final class CudaProbe {
  /**
   * A kernel in the form Caffe's are shipped: CUDA 11.8 PTX (ISA 7.8) for sm_35, which the driver
   * compiles for the device at first use. Caffe's GPU natives hold no machine code for any newer
   * GPU, so a driver that cannot compile this cannot run Caffe.
   */
  static final String PTX =
      ".version 7.8\n.target sm_35\n.address_size 64\n"
          + ".visible .entry sparknet_probe()\n{\n\tret;\n}\n";

  /** The driver that compiles PTX 7.8: CUDA 11.8's (520 and newer). */
  private static final int MIN_DRIVER = 11080;

  /** cuRAND's CURAND_RNG_PSEUDO_DEFAULT, the generator Caffe creates. */
  private static final int CURAND_DEFAULT = 100;

  private static final ConcurrentMap<Integer, Optional<String>> PROBLEMS =
      new ConcurrentHashMap<>();

  private CudaProbe() {}

  /** The devices Caffe's GPU natives can use, with the libraries loaded, or what is missing. */
  static GpuSupport probe() {
    if (!CudaNativeFiles.present()) {
      return GpuSupport.none(
          "this build has Caffe's GPU natives but not SparkNet's CUDA natives ("
              + CudaNativeFiles.RESOURCES
              + "): use the GPU jar, sparknet-apps-gpu/target/sparknet-apps-VERSION-gpu.jar");
    }
    Path natives;
    try {
      natives = CudaNativeFiles.extract();
      CudaNatives.load(natives);
    } catch (UncheckedIOException | UnsatisfiedLinkError e) {
      return GpuSupport.none("SparkNet's CUDA probe cannot be loaded: " + e.getMessage());
    }
    // Caffe's kernels reach the GPU as PTX for sm_35, 60 modules that the driver compiles at
    // first use; loaded eagerly (CUDA 11.8's default), the first context compiles all of them at
    // once on a GPU without a cached copy. Lazily, only the kernels a net runs are compiled, when
    // first launched. Set before the driver initializes, here, unless the user chose.
    CudaNatives.defaultEnv("CUDA_MODULE_LOADING", "LAZY");
    int driver = CudaNatives.driverVersion();
    if (driver == CudaNatives.NO_DRIVER) {
      return GpuSupport.none(
          "no NVIDIA driver ("
              + CudaNatives.driverError()
              + "): install the NVIDIA driver, 520 or newer");
    }
    if (driver < MIN_DRIVER) {
      return GpuSupport.none(
          "the NVIDIA driver supports CUDA "
              + driver / 1000
              + "."
              + driver % 1000 / 10
              + " only: Caffe's kernels are CUDA 11.8 PTX, which only a driver for CUDA 11.8 or"
              + " newer can compile (520 or newer): update the driver");
    }
    int count = CudaNatives.deviceCount();
    if (count <= 0) {
      String visible = System.getenv("CUDA_VISIBLE_DEVICES");
      return GpuSupport.none(
          "no CUDA device is visible ("
              + (count == 0 ? "0 devices" : CudaNatives.errorName(-count))
              + (visible == null ? "" : ", CUDA_VISIBLE_DEVICES=" + visible)
              + ")");
    }
    try {
      CudaLibraries libs =
          CudaLibraries.find(CudaSearchPath.ofThisMachine(), natives.resolve(CudaLibraries.CUDART));
      return new GpuSupport(count, null, CudaChain.load(libs, natives));
    } catch (IllegalArgumentException e) {
      return GpuSupport.none(e.getMessage());
    }
  }

  /** Why gpu:{@code id} cannot run Caffe, or null; each device is checked once. */
  static String problem(int id, CudaChain chain) {
    return PROBLEMS.computeIfAbsent(id, k -> Optional.ofNullable(check(k, chain))).orElse(null);
  }

  /** "NVIDIA H100 80GB HBM3". */
  static String name(int id) {
    return CudaNatives.deviceName(id);
  }

  /** Free memory on {@code device} in bytes, or -1 when CUDA cannot tell. */
  static long freeBytes(int device) {
    long[] d = CudaNatives.device(device, null);
    return d[CudaNatives.CONTEXT] == 0 ? d[CudaNatives.FREE] : -1;
  }

  private static String check(int id, CudaChain chain) {
    long[] d = CudaNatives.device(id, PTX);
    String gpu =
        "gpu:"
            + id
            + " ("
            + name(id)
            + ", compute capability "
            + d[CudaNatives.CC_MAJOR]
            + "."
            + d[CudaNatives.CC_MINOR]
            + ")";
    if (d[CudaNatives.CONTEXT] != 0) {
      return gpu + " cannot be used: " + CudaNatives.errorName((int) d[CudaNatives.CONTEXT]);
    }
    if (d[CudaNatives.CC_MAJOR] * 10 + d[CudaNatives.CC_MINOR] < 35) {
      return gpu + " is older than Caffe's kernels allow (compute capability 3.5 or newer)";
    }
    if (d[CudaNatives.JIT] != 0) {
      return "the NVIDIA driver cannot compile Caffe's kernels (CUDA 11.8 PTX for sm_35) for "
          + gpu
          + ": "
          + CudaNatives.errorName((int) d[CudaNatives.JIT])
          + "; a newer driver may know this GPU";
    }
    for (Handle h : HANDLES) {
      CudaLibraries.Found f = chain.libraries().get(h.library());
      int status = CudaNatives.handle(id, f.file().toString(), h.create(), h.destroy(), h.arg());
      if (status != 0) {
        return f.library().what()
            + " "
            + f.major()
            + " ("
            + f.file()
            + ") cannot work on "
            + gpu
            + ": "
            + h.create()
            + (status <= -1000
                ? " found no context: " + CudaNatives.errorName(-1000 - status)
                : " returned status " + status)
            + "; install a "
            + f.library().what()
            + " that supports this GPU";
      }
    }
    return null;
  }

  /** A library's handle, as Caffe creates it at its first GPU call on a thread. */
  private record Handle(CudaLibrary library, String create, String destroy, int arg) {}

  private static final List<Handle> HANDLES =
      List.of(
          new Handle(CudaLibrary.CUBLAS, "cublasCreate_v2", "cublasDestroy_v2", 0),
          new Handle(CudaLibrary.CUDNN, "cudnnCreate", "cudnnDestroy", 0),
          new Handle(
              CudaLibrary.CURAND,
              "curandCreateGenerator",
              "curandDestroyGenerator",
              CURAND_DEFAULT));
}
