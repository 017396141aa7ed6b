package org.sparknet.apps.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The GPU jar, on a machine without a GPU (CI's): it holds Caffe's linux-x86_64-gpu natives and the
 * CUDA presets next to everything the CPU jar holds, the CPU jar holds none of them, and the GPU
 * jar itself says what is missing for {@code --device gpu} (exit 2) and still trains on the CPU.
 *
 * <p>Broken builds this catches: the GPU Caffe dependency left out of this module's POM gave "no
 * org/bytedeco/caffe/linux-x86_64-gpu/libcaffe.so.1.0.0" and a --device gpu line saying the build
 * is CPU-only; without CaffeGpus.beforeLoad (JavaCPP then pairs the GPU JNI wrapper with the CPU
 * libcaffe) the CPU run exited 2 with "Caffe crashed on this net definition (exit code 134, no glog
 * message) during a dry run in a child JVM".
 */
class GpuJarIT {
  private static final Path GPU_JAR = Path.of(System.getProperty("sparknet.gpu.jar"));
  private static final Path APPS = Path.of("..", "sparknet-apps", "target").toAbsolutePath();

  @TempDir Path tmp;

  @Test
  void theGpuJarHoldsCaffesGpuNativesAndTheCudaPresetsAndTheCpuJarNone() throws IOException {
    Set<String> gpu = entries(GPU_JAR);
    for (String e :
        List.of(
            "org/bytedeco/caffe/linux-x86_64-gpu/libcaffe.so.1.0.0",
            "org/bytedeco/caffe/linux-x86_64-gpu/libjnicaffe.so",
            "org/bytedeco/caffe/linux-x86_64/libcaffe.so.1.0.0",
            "org/bytedeco/cuda/linux-x86_64/libjnicudart.so",
            "org/bytedeco/cuda/linux-x86_64/libjnicudnn.so",
            "org/bytedeco/cuda/global/cudart.class",
            "org/sparknet/apps/cli/SparkNetCli.class")) {
      assertTrue(gpu.contains(e), "no " + e + " in " + GPU_JAR);
    }
    assertFalse(
        gpu.stream().anyMatch(e -> e.contains("-redist") || e.contains("libcudart.so")),
        "the CUDA libraries themselves (the presets' -redist) stay out of the GPU jar");
    try (JarFile jar = new JarFile(GPU_JAR.toFile())) {
      assertEquals(
          "org.sparknet.apps.cli.SparkNetCli",
          jar.getManifest().getMainAttributes().getValue("Main-Class"));
    }
    Path cpuJar = Files.list(APPS).filter(p -> p.toString().endsWith("-all.jar")).findFirst().get();
    List<String> cpuGpuEntries =
        entries(cpuJar).stream()
            .filter(e -> e.contains("linux-x86_64-gpu") || e.startsWith("org/bytedeco/cuda/"))
            .toList();
    assertEquals(List.of(), cpuGpuEntries, cpuJar + " holds GPU parts");
  }

  @Test
  void deviceGpuWithoutCudaIsExitTwoNamingTheMissingRuntime() throws Exception {
    Run r = demo("gpu");
    assertEquals(2, r.exit(), r.output());
    List<String> errors = r.output().lines().filter(l -> l.startsWith("sparknet:")).toList();
    assertEquals(
        List.of(
            "sparknet: error: --device gpu: no GPU can be used here: the CUDA 11.8 runtime is"
                + " missing (libcudart.so.11.0 not found): install CUDA 11.8 and cuDNN 8.6, or put"
                + " the presets' bundled CUDA on the class path"
                + " (org.bytedeco:cuda:11.8-8.6-1.5.8:linux-x86_64-redist)"),
        errors,
        r.output());
    assertFalse(r.output().contains("A fatal error"), "the JVM did not abort: " + r.output());
  }

  @Test
  void theGpuJarTrainsOnTheCpuWhereCudaIsMissing() throws Exception {
    Run r = demo("cpu", "--workers", "1", "--tau", "5", "--epochs", "0.006");
    assertEquals(0, r.exit(), r.output());
    assertTrue(r.output().contains("devices: worker 0 cpu"), r.output());
    assertTrue(r.output().contains("Final test accuracy"), r.output());
  }

  private record Run(int exit, String output) {}

  /** {@code sparknet demo --device DEVICE ...} from the GPU jar, as spark-submit's JVM runs it. */
  private Run demo(String device, String... more) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Collections.addAll(
        cmd, Files.readString(APPS.resolve("launcher/jvm-flags.txt")).trim().split("\\s+"));
    cmd.add("-Dlog4j2.configurationFile=" + APPS.resolve("launcher/log4j2.properties"));
    cmd.add("-cp");
    cmd.add(GPU_JAR + File.pathSeparator + APPS.resolve("spark-jars") + File.separator + "*");
    cmd.add("org.sparknet.apps.cli.SparkNetCli");
    Collections.addAll(cmd, "demo", "--device", device, "--plot", tmp.resolve("d.png").toString());
    Collections.addAll(cmd, more);
    Path log = tmp.resolve("out-" + device + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(tmp.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("demo --device " + device + " did not finish in 3 minutes");
    }
    return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static Set<String> entries(Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      return j.stream().map(e -> e.getName()).collect(Collectors.toSet());
    }
  }
}
