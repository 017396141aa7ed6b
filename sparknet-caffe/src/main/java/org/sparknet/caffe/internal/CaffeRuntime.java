package org.sparknet.caffe.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * Loading Caffe's natives, choosing mode and device on the calling thread, and handing protos to
 * and from Caffe: text-format definitions (already checked in Java) to Caffe's own parser, binary
 * messages through temporary files.
 */
public final class CaffeRuntime {
  private static volatile boolean loaded;

  private CaffeRuntime() {}

  /**
   * Loads the natives once. In the GPU jar on a machine whose CUDA cannot be used, the CPU natives
   * are loaded, whole (see {@link CaffeGpus#beforeLoad}). Caffe's glog is then quietened ({@link
   * #quietGlog}).
   *
   * @throws IllegalArgumentException naming the system library that is missing
   */
  public static void load() {
    if (!loaded) {
      synchronized (CaffeRuntime.class) {
        if (!loaded) {
          CaffeGpus.beforeLoad();
          try {
            Loader.load(caffe.class);
          } catch (UnsatisfiedLinkError e) {
            throw NativeLoadFailure.of(e);
          }
          quietGlog(System.getenv(GLOG_LEVEL_VARIABLE));
          loaded = true;
        }
      }
    }
  }

  /** The environment variable glog reads its minimum log level from when it is loaded. */
  public static final String GLOG_LEVEL_VARIABLE = "GLOG_minloglevel";

  /** glog's flag, linked into libcaffe and exported from it. */
  private static final String GLOG_LEVEL_SYMBOL = "_ZN3fLI17FLAGS_minloglevelE";

  /**
   * Sets glog's minimum level to 2 (errors only) unless the environment chose one. glog reads
   * GLOG_minloglevel only when it is loaded, so a driver started by spark-submit or spark-shell,
   * whose environment nobody prepared, would otherwise print every layer Caffe sets up; the presets
   * expose no setter, and passing the flag to GlobalInit exits the JVM, so the flag is written
   * where the library keeps it. glog reads it at each message.
   */
  static void quietGlog(String fromEnvironment) {
    if (fromEnvironment != null && !fromEnvironment.isBlank()) {
      return;
    }
    Pointer flag = Loader.addressof(GLOG_LEVEL_SYMBOL);
    if (flag == null) {
      return;
    }
    try (flag;
        IntPointer level = new IntPointer(flag)) {
      if (!level.isNull()) {
        level.put(2);
      }
    }
  }

  /** Parses a device string: -1 for "cpu", N for "gpu:N". */
  public static int deviceId(String device) {
    if (device.equals("cpu")) {
      return -1;
    }
    if (device.matches("gpu:\\d+")) {
      return Integer.parseInt(device.substring(4));
    }
    throw new IllegalArgumentException(
        "Device must be 'cpu' or 'gpu:N' (N the device id) but was '" + device + "'");
  }

  /** Number of GPUs Caffe can use here (0 for the CPU jar, or when CUDA is not usable). */
  public static int gpuCount() {
    return gpuSupport().devices();
  }

  /** The GPUs Caffe can use in this JVM, or why it can use none. */
  public static GpuSupport gpuSupport() {
    return CaffeGpus.support();
  }

  /** What this JVM finds for Caffe on GPUs, one finding a line (see {@code GpuReport}). */
  public static List<String> gpuReport() {
    return GpuReportLines.of(gpuSupport());
  }

  /** Whether Caffe's GPU natives (linux-x86_64-gpu) are on the class path: the GPU jar. */
  public static boolean gpuBuild() {
    return CaffeGpus.gpuBuild();
  }

  /** Free memory on GPU {@code deviceId} in bytes, or -1 when unknown. */
  public static long freeGpuBytes(int deviceId) {
    return gpuCount() > deviceId ? CudaProbe.freeBytes(deviceId) : -1;
  }

  /**
   * GPU {@code deviceId} and the CUDA libraries Caffe uses on it, for the devices line: "NVIDIA
   * H100 80GB HBM3 (cuBLAS 13.0 compat, cuDNN 9.14 compat)", where compat says that SparkNet's
   * forwarding library stands in for the CUDA 11 version Caffe's natives link.
   */
  public static String describeGpu(int deviceId) {
    GpuSupport gpus = gpuSupport();
    return gpus.devices() > deviceId
        ? CudaProbe.name(deviceId) + " (" + gpus.libraries() + ")"
        : "gpu:" + deviceId;
  }

  /** Throws IllegalArgumentException unless {@code device} exists here. */
  public static void checkDevice(String device) {
    int id = deviceId(device);
    if (id < 0) {
      return;
    }
    GpuSupport gpus = gpuSupport();
    if (gpus.devices() == 0) {
      throw new IllegalArgumentException(
          "Device '" + device + "' cannot be used: " + gpus.problem() + "; or use device 'cpu'");
    }
    if (id >= gpus.devices()) {
      throw new IllegalArgumentException(
          "Device '"
              + device
              + "' does not exist: this machine has "
              + gpus.devices()
              + " GPU(s), ids 0 to "
              + (gpus.devices() - 1));
    }
    String problem = CudaProbe.problem(id, gpus.chain());
    if (problem != null) {
      throw new IllegalArgumentException(
          "Device '" + device + "' cannot be used: " + problem + "; or use device 'cpu'");
    }
  }

  /** Sets Caffe's mode (and device) for the calling thread: Caffe keeps them per thread. */
  public static void useDevice(int deviceId) {
    load();
    if (deviceId < 0) {
      Caffe.set_mode(Caffe.CPU);
    } else {
      Caffe.SetDevice(deviceId);
      Caffe.set_mode(Caffe.GPU);
    }
  }

  /**
   * Reads text (already checked by {@link ProtoSchema}) into {@code target} with Caffe's parser.
   */
  public static void readText(String text, org.bytedeco.caffe.Message target, String source) {
    load();
    throughTempFile(
        ".prototxt",
        source,
        tmp -> {
          Files.writeString(tmp, text, StandardCharsets.UTF_8);
          if (!caffe.ReadProtoFromTextFile(tmp.toString(), target)) {
            throw new IllegalArgumentException(
                "Caffe could not parse " + source + " (the Java check passed; see stderr)");
          }
          return null;
        });
  }

  /** A protobuf message's binary form, as Caffe writes it to files. */
  public static byte[] bytes(org.bytedeco.caffe.Message m) {
    BytePointer bytes = m.SerializeAsString();
    byte[] out = new byte[(int) bytes.limit()];
    bytes.get(out);
    return out;
  }

  /** What {@link #throughTempFile} runs. */
  @FunctionalInterface
  public interface FileWork<T> {
    T apply(Path file) throws IOException;
  }

  /**
   * Runs {@code work} on a new temporary file, deleted afterwards: Caffe reads and writes protos
   * through files, not byte arrays.
   *
   * @param what what the file is for, named when it cannot be written
   */
  public static <T> T throughTempFile(String suffix, String what, FileWork<T> work) {
    Path tmp = null;
    try {
      tmp = Files.createTempFile("sparknet-", suffix);
      return work.apply(tmp);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a temporary file for " + what, e);
    } finally {
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // a leftover temporary file is harmless
        }
      }
    }
  }
}
