package org.sparknet.caffe.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.bytedeco.caffe.Caffe;
import org.bytedeco.caffe.global.caffe;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;

/**
 * Loading Caffe's natives, choosing mode and device on the calling thread, and handing protos to
 * and from Caffe: text-format definitions (already checked in Java) to Caffe's own parser, binary
 * messages through temporary files.
 */
public final class CaffeRuntime {
  private static volatile boolean loaded;
  private static volatile Integer gpuCount;

  private CaffeRuntime() {}

  /** Loads the natives once. glog stays quiet when GLOG_minloglevel=2 is in the environment. */
  public static void load() {
    if (!loaded) {
      synchronized (CaffeRuntime.class) {
        if (!loaded) {
          Loader.load(caffe.class);
          loaded = true;
        }
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

  /**
   * Number of GPUs Caffe can use: 0 for a CPU-only build (the default {@code caffe-platform}), or
   * the CUDA device count when the {@code gpu} profile's natives and CUDA are on the class path.
   */
  public static int gpuCount() {
    Integer n = gpuCount;
    if (n == null) {
      n = probeGpus();
      gpuCount = n;
    }
    return n;
  }

  private static int probeGpus() {
    String platform = Loader.getPlatform();
    if (CaffeRuntime.class.getClassLoader().getResource("org/bytedeco/caffe/" + platform + "-gpu/")
        == null) {
      return 0;
    }
    try {
      Class<?> cudart = Class.forName("org.bytedeco.cuda.global.cudart");
      Loader.load(cudart);
      int[] count = new int[1];
      Method m = cudart.getMethod("cudaGetDeviceCount", int[].class);
      int err = (Integer) m.invoke(null, (Object) count);
      return err == 0 ? count[0] : 0;
    } catch (ReflectiveOperationException | LinkageError e) {
      return 0;
    }
  }

  /** Throws IllegalArgumentException unless {@code device} exists here. */
  public static void checkDevice(String device) {
    int id = deviceId(device);
    if (id < 0) {
      return;
    }
    int n = gpuCount();
    if (n == 0) {
      throw new IllegalArgumentException(
          "Device '"
              + device
              + "' requested but this Caffe build is CPU-only (or no CUDA device is visible);"
              + " use device 'cpu', or build with -Pgpu on a machine with CUDA");
    }
    if (id >= n) {
      throw new IllegalArgumentException(
          "Device '"
              + device
              + "' does not exist: this machine has "
              + n
              + " GPU(s), ids 0 to "
              + (n - 1));
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
