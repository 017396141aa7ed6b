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
 * The GPU jar, on a machine without a GPU or a driver (CI's): it holds Caffe's linux-x86_64-gpu
 * natives and SparkNet's CUDA natives next to everything the CPU jar holds, the CPU jar holds none
 * of them, and the GPU jar itself says what is missing for {@code --device gpu} (exit 2, the
 * driver) and still trains on the CPU.
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
  private static final String NATIVES = "org/sparknet/caffe/cuda/linux-x86_64/";

  @TempDir Path tmp;

  @Test
  void theGpuJarHoldsCaffesGpuNativesAndSparkNetsCudaNativesAndTheCpuJarNone() throws IOException {
    Set<String> gpu = entries(GPU_JAR);
    for (String e :
        List.of(
            "org/bytedeco/caffe/linux-x86_64-gpu/libcaffe.so.1.0.0",
            "org/bytedeco/caffe/linux-x86_64-gpu/libjnicaffe.so",
            "org/bytedeco/caffe/linux-x86_64/libcaffe.so.1.0.0",
            NATIVES + "libcudart.so.11.0",
            NATIVES + "libcudart.so.11.0.copyright",
            NATIVES + "libcublas.so.11",
            NATIVES + "libcudnn.so.8",
            NATIVES + "libsparknet_cuda.so",
            "org/sparknet/apps/cli/SparkNetCli.class")) {
      assertTrue(gpu.contains(e), "no " + e + " in " + GPU_JAR);
    }
    assertFalse(
        gpu.stream().anyMatch(e -> e.startsWith("org/bytedeco/cuda/")),
        "the CUDA presets stay out of the GPU jar: SparkNet probes CUDA itself");
    try (JarFile jar = new JarFile(GPU_JAR.toFile())) {
      assertEquals(
          "org.sparknet.apps.cli.SparkNetCli",
          jar.getManifest().getMainAttributes().getValue("Main-Class"));
    }
    Path cpuJar = Files.list(APPS).filter(p -> p.toString().endsWith("-all.jar")).findFirst().get();
    List<String> cpuGpuEntries =
        entries(cpuJar).stream()
            .filter(
                e ->
                    e.contains("linux-x86_64-gpu")
                        || e.startsWith("org/bytedeco/cuda/")
                        || e.startsWith(NATIVES))
            .toList();
    assertEquals(List.of(), cpuGpuEntries, cpuJar + " holds GPU parts");
  }

  @Test
  void deviceGpuWithoutADriverIsExitTwoNamingTheDriver() throws Exception {
    Run r = demo("gpu");
    assertEquals(2, r.exit(), r.output());
    List<String> errors = r.output().lines().filter(l -> l.startsWith("sparknet:")).toList();
    assertEquals(
        List.of(
            "sparknet: error: --device gpu: no GPU can be used here: no NVIDIA driver"
                + " (libcuda.so.1: cannot open shared object file: No such file or directory):"
                + " install the NVIDIA driver, 520 or newer"),
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

  /**
   * Caffe's unchanged LeNet solver says solver_mode: GPU; with device_id 3 added, on a machine
   * without that GPU the GPU jar says so in one line and trains on the CPU, and --device gpu:3
   * makes it an error (exit 2) naming what is missing. Broken build this catches: requestedDevice
   * ignoring device_id gave "device_id 0" in the line.
   */
  @Test
  void solverModeGpuWithoutThatGpuSaysSoAndRunsOnTheCpuUnlessDeviceAsksForIt() throws Exception {
    Path caffe = Files.createDirectories(tmp.resolve("examples/mnist"));
    Path examples = Path.of("..", "examples", "mnist").toAbsolutePath();
    Files.writeString(
        caffe.resolve("lenet_solver.prototxt"),
        Files.readString(examples.resolve("lenet_solver.prototxt")) + "device_id: 3\n");
    Files.copy(
        examples.resolve("lenet_train_test.prototxt"), caffe.resolve("lenet_train_test.prototxt"));
    Path data = Path.of("/usr/share/datasets/fashion-mnist");
    String[] train = {
      "train",
      "--solver",
      caffe.resolve("lenet_solver.prototxt").toString(),
      "--train",
      data.resolve("train-images-idx3-ubyte.gz").toString(),
      "--workers",
      "1",
      "--tau",
      "2",
      "--rounds",
      "1",
      "--output",
      tmp.resolve("run").toString()
    };
    Run r = cli("train", train);
    assertEquals(0, r.exit(), r.output());
    List<String> said = r.output().lines().filter(l -> l.startsWith("solver_mode")).toList();
    assertEquals(1, said.size(), r.output());
    assertTrue(
        said.get(0)
            .startsWith(
                "solver_mode: GPU with device_id 3 cannot run here, the nets run on the CPU: no"
                    + " NVIDIA driver ("),
        said.get(0));
    assertTrue(r.output().contains("devices: worker 0 cpu"), r.output());

    String[] onGpu = java.util.Arrays.copyOf(train, train.length + 2);
    onGpu[train.length] = "--device";
    onGpu[train.length + 1] = "gpu:3";
    Run e = cli("train-gpu3", onGpu);
    assertEquals(2, e.exit(), e.output());
    assertTrue(
        e.output().contains("sparknet: error: --device gpu:3: no GPU can be used here: no NVIDIA"),
        e.output());
  }

  private record Run(int exit, String output) {}

  /** {@code sparknet demo --device DEVICE ...} from the GPU jar, as spark-submit's JVM runs it. */
  private Run demo(String device, String... more) throws Exception {
    List<String> args = new ArrayList<>(List.of("demo", "--device", device));
    Collections.addAll(args, "--plot", tmp.resolve("d.png").toString());
    Collections.addAll(args, more);
    return cli("demo-" + device, args.toArray(new String[0]));
  }

  /** {@code sparknet ARGS} from the GPU jar, as spark-submit's JVM runs it; NAME names its log. */
  private Run cli(String name, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Collections.addAll(
        cmd, Files.readString(APPS.resolve("launcher/jvm-flags.txt")).trim().split("\\s+"));
    cmd.add("-Dlog4j2.configurationFile=" + APPS.resolve("launcher/log4j2.properties"));
    cmd.add("-cp");
    cmd.add(GPU_JAR + File.pathSeparator + APPS.resolve("spark-jars") + File.separator + "*");
    cmd.add("org.sparknet.apps.cli.SparkNetCli");
    Collections.addAll(cmd, args);
    Path log = tmp.resolve("out-" + name + ".log");
    Process p =
        new ProcessBuilder(cmd)
            .directory(tmp.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(3, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", args) + " did not finish in 3 minutes");
    }
    return new Run(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
  }

  private static Set<String> entries(Path jar) throws IOException {
    try (JarFile j = new JarFile(jar.toFile())) {
      return j.stream().map(e -> e.getName()).collect(Collectors.toSet());
    }
  }
}
