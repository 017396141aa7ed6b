package org.sparknet.caffe.internal;

import java.nio.file.Path;

/**
 * SparkNet's JNI probe of the CUDA driver and libraries (src/main/native/cuda/sparknet_cuda.c),
 * which asks what Caffe's first GPU calls would find, where a failure cannot abort the process. It
 * links nothing: the driver and the libraries are opened with dlopen, so it loads on any machine.
 * Codes below 0 are the probe's own ({@link #NO_DRIVER}, {@link #NO_SYMBOL}, {@link #NO_LIBRARY});
 * others are CUDA's {@code CUresult} or a library's status.
 */
final class CudaNatives {
  static final int NO_DRIVER = -1;
  static final int NO_SYMBOL = -2;
  static final int NO_LIBRARY = -3;

  /** {@link #device}'s fields. */
  static final int CC_MAJOR = 0;

  static final int CC_MINOR = 1;
  static final int JIT = 2;
  static final int FREE = 3;
  static final int TOTAL = 4;
  static final int CONTEXT = 5;

  private static boolean loaded;

  private CudaNatives() {}

  /** Loads the probe from {@code folder} once (by this class, so that its methods bind). */
  static synchronized void load(Path folder) {
    if (!loaded) {
      System.load(folder.resolve(CudaNativeFiles.PROBE).toString());
      loaded = true;
    }
  }

  /** Opens a library by path or soname, for good, its symbols global; null, or dlerror's text. */
  static native String open(String library);

  /** Whether the loaded {@code library} defines {@code function}. */
  static native boolean defines(String library, String function);

  /** {@code function(type, &value)} of a loaded library (type 0 major, 1 minor); below 0: none. */
  static native int property(String library, String function, int type);

  /** Sets an environment variable of the process unless it is set. */
  static native void defaultEnv(String name, String value);

  /** Why libcuda.so.1 could not be opened; empty when it could. */
  static native String driverError();

  /** The CUDA version the driver supports (13000 for 13.0), or {@link #NO_DRIVER}. */
  static native int driverVersion();

  /** The devices the driver shows, or minus cuInit's CUresult, or {@link #NO_DRIVER}. */
  static native int deviceCount();

  /** The driver's name of a CUresult. */
  static native String errorName(int result);

  static native String deviceName(int device);

  /**
   * A device's compute capability, the CUresult of JIT-compiling {@code ptx} for it (skipped when
   * null), its free and total bytes, and the CUresult of entering its context (0: the others hold).
   */
  static native long[] device(int device, String ptx);

  /**
   * {@code create(&handle, arg)} then {@code destroy(handle)} of a loaded library on a device:
   * create's status, {@link #NO_SYMBOL}, {@link #NO_LIBRARY}, or -1000 - the context's CUresult.
   */
  static native int handle(int device, String library, String create, String destroy, int arg);
}
