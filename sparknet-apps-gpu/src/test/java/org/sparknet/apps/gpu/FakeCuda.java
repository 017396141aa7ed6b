package org.sparknet.apps.gpu;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Stand-ins for NVIDIA's CUDA libraries, for a machine without them (CI's): each defines the
 * functions that Caffe's GPU libcaffe asks of it (read from the real libcaffe), under the soname
 * and version node a real release has, plus the version getter SparkNet asks; the runtime's
 * functions return an error status, cuBLAS's and cuDNN's write {@link #ANSWER} to their second
 * argument. They let the real load chain (CUDA 11.8's runtime, SparkNet's forwarding libraries,
 * libcaffe) be loaded and bound on a CPU machine; nothing runs on them.
 */
final class FakeCuda {
  /** A machine's CUDA: the majors of cuBLAS and cuDNN, and whether CUDA 11.8's runtime is there. */
  enum Layout {
    CUDA_11_8(11, 8, true),
    CUDA_13(13, 9, false);

    final int cublas;
    final int cudnn;
    final boolean cudart;

    Layout(int cublas, int cudnn, boolean cudart) {
      this.cublas = cublas;
      this.cudnn = cudnn;
      this.cudart = cudart;
    }
  }

  /** What every stand-in cuBLAS and cuDNN function writes to its second argument. */
  static final int ANSWER = 4242;

  private FakeCuda() {}

  /**
   * Writes {@code layout}'s libraries into {@code dir}: cuBLAS (with cuBLASLt), cuRAND 10, cuDNN
   * (with one sub-library) and, for CUDA 11.8, the runtime; minor versions cuBLAS 11.11 / 13.0,
   * cuDNN 8.6 / 9.14.
   */
  static Path build(Path dir, Layout layout, ElfSymbols libcaffe) throws Exception {
    Files.createDirectories(dir);
    Map<String, Set<String>> asks = libcaffe.undefined();
    library(
        dir,
        "libcublas.so." + layout.cublas,
        asks.get("libcublas.so.11"),
        "cublasGetProperty",
        layout.cublas,
        layout.cublas == 11 ? 11 : 0);
    library(dir, "libcublasLt.so." + layout.cublas, Set.of("cublasLtCreate"), null, 0, 0);
    library(dir, "libcurand.so.10", asks.get("libcurand.so.10"), "curandGetProperty", 10, 3);
    library(
        dir,
        "libcudnn.so." + layout.cudnn,
        asks.get("libcudnn.so.8"),
        "cudnnGetProperty",
        layout.cudnn,
        layout.cudnn == 8 ? 6 : 14);
    library(dir, "libcudnn_ops.so." + layout.cudnn, Set.of("cudnnOpsVersionCheck"), null, 0, 0);
    if (layout.cudart) {
      library(dir, "libcudart.so.11.0", asks.get("libcudart.so.11.0"), null, 0, 0);
    }
    return dir;
  }

  /** One library exporting {@code functions} under node {@code soname}, each returning 1. */
  private static void library(
      Path dir, String soname, Set<String> functions, String getter, int major, int minor)
      throws Exception {
    Set<String> names = new TreeSet<>(functions);
    StringBuilder c = new StringBuilder();
    for (String f : names) {
      // cuBLAS's and cuDNN's functions answer a call shaped like their version getters, so that a
      // test can tell a forwarded call from SparkNet's unbound stub (which returns 1); the
      // runtime's are called by libcaffe's constructors with other arguments and only return.
      c.append(
          soname.startsWith("libcudart")
              ? "int " + f + "(void) { return 1; }\n"
              : "int " + f + "(int type, int *value) { *value = " + ANSWER + "; return 0; }\n");
    }
    if (getter != null) {
      c.append("int ")
          .append(getter)
          .append("(int type, int *value) {\n")
          .append("  *value = type == 0 ? ")
          .append(major)
          .append(" : type == 1 ? ")
          .append(minor)
          .append(" : 0;\n  return 0;\n}\n");
      names.add(getter);
    }
    Path src = Files.writeString(dir.resolve(soname + ".c"), c);
    StringBuilder map = new StringBuilder(soname + " {\n  global:\n");
    names.forEach(n -> map.append("    ").append(n).append(";\n"));
    map.append("  local: *;\n};\n");
    Path mapFile = Files.writeString(dir.resolve(soname + ".map"), map);
    gcc(
        List.of(
            "gcc",
            "-shared",
            "-fPIC",
            "-o",
            dir.resolve(soname).toString(),
            src.toString(),
            "-Wl,-soname," + soname,
            "-Wl,--version-script=" + mapFile));
  }

  private static void gcc(List<String> cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(new ArrayList<>(cmd)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }
}
